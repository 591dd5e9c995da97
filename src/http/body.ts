// Reads a JSON request body from the stream: media type first, then a size limit enforced while reading
// (on decoded bytes when gzip-encoded), then strict UTF-8 and JSON.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Problem } from './problems.js';

export interface BodyLimits {
  maxBytes: number;
}

/** application/json with any parameters, as long as a charset, if given, is UTF-8. */
export function checkJsonMediaType(contentType: string | undefined): void {
  const [essence = '', ...parameters] = (contentType ?? '').split(';');
  if (essence.trim().toLowerCase() !== 'application/json') {
    throw new Problem('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset' && !/^"?utf-?8"?$/i.test(value.trim())) {
      throw new Problem('UNSUPPORTED_MEDIA_TYPE', 'the body must be encoded as UTF-8');
    }
  }
}

function decodingStream(request: IncomingMessage, payload: Readable): Readable {
  const encoding = String(request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return payload;
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    const gunzip = createGunzip();
    payload.on('error', (error) => gunzip.destroy(error));
    return payload.pipe(gunzip);
  }
  throw new Problem('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding "${encoding}" is not supported; use gzip or none`);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function tooLarge(limit: number): Problem {
  return new Problem('PAYLOAD_TOO_LARGE', `the body is larger than ${limit} bytes`, {
    headers: { connection: 'close' },
    max_bytes: limit,
  });
}

/**
 * A body read whole: the SHA-256 of its decoded bytes (what an Idempotency-Key's fingerprint is made of), and
 * either the parsed JSON or the 422 problem saying why it is not JSON. Parse failures are values here so that an
 * idempotent request can still store them as its answer.
 */
export interface ReceivedBody {
  digest: string;
  parsed: { ok: true; value: unknown } | { ok: false; problem: Problem };
}

/** Refuses (throws) bodies of the wrong media type, too large, or not gzip-decodable; see readJsonBodyWithDigest. */
export async function readJsonBody(request: IncomingMessage, payload: Readable, limits: BodyLimits): Promise<unknown> {
  const body = await readJsonBodyWithDigest(request, payload, limits);
  if (!body.parsed.ok) throw body.parsed.problem;
  return body.parsed.value;
}

export function readJsonBodyWithDigest(request: IncomingMessage, payload: Readable, limits: BodyLimits): Promise<ReceivedBody> {
  checkJsonMediaType(request.headers['content-type']);
  const declared = Number(request.headers['content-length']);
  const encoded = String(request.headers['content-encoding'] ?? '').length > 0;
  if (!encoded && Number.isFinite(declared) && declared > limits.maxBytes) {
    return Promise.reject(tooLarge(limits.maxBytes));
  }
  const stream = decodingStream(request, payload);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const hash = createHash('sha256');
    let received = 0;
    let settled = false;
    const finish = (error: unknown, value?: ReceivedBody) => {
      if (settled) return;
      settled = true;
      stream.removeAllListeners('data');
      if (error) reject(error);
      else resolve(value!);
    };
    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.maxBytes) {
        // Stop decoding at the limit: a gzip bomb never inflates past it.
        stream.pause();
        if (stream !== payload) stream.destroy();
        finish(tooLarge(limits.maxBytes));
        return;
      }
      chunks.push(chunk);
      hash.update(chunk);
    });
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (stream !== payload && error.code?.startsWith('Z_')) {
        finish(new Problem('VALIDATION_FAILED', 'the gzip body could not be decoded', {
          errors: [{ pointer: '', code: 'invalid_gzip', detail: 'the body is not valid gzip data' }],
        }));
      } else {
        finish(error);
      }
    });
    stream.on('end', () => {
      if (settled) return;
      const digest = hash.digest('hex');
      const refused = (problem: Problem): ReceivedBody => ({ digest, parsed: { ok: false, problem } });
      let text: string;
      try {
        text = strictUtf8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
      } catch {
        finish(null, refused(invalidJson('the body is not valid UTF-8')));
        return;
      }
      chunks.length = 0;
      try {
        finish(null, { digest, parsed: { ok: true, value: JSON.parse(text) } } satisfies ReceivedBody);
      } catch (error) {
        finish(null, refused(invalidJson(error instanceof SyntaxError ? error.message : 'the body is not valid JSON')));
      }
    });
  });
}

function invalidJson(detail: string): Problem {
  return new Problem('VALIDATION_FAILED', 'the body is not valid JSON', {
    errors: [{ pointer: '', code: 'invalid_json', detail }],
  });
}
