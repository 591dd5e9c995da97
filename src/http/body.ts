// Reads a JSON request body from the stream: media type first, then a size limit enforced while reading
// (on decoded bytes when gzip-encoded), then strict UTF-8 and JSON.
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

export function readJsonBody(request: IncomingMessage, payload: Readable, limits: BodyLimits): Promise<unknown> {
  checkJsonMediaType(request.headers['content-type']);
  const declared = Number(request.headers['content-length']);
  const encoded = String(request.headers['content-encoding'] ?? '').length > 0;
  if (!encoded && Number.isFinite(declared) && declared > limits.maxBytes) {
    return Promise.reject(tooLarge(limits.maxBytes));
  }
  const stream = decodingStream(request, payload);
  // A declared length lets the chunks be copied into one buffer as they arrive: a large catalogue is then held
  // once, not once in chunks and again concatenated.
  // Only after authentication, so only a known provider can make the server reserve (untouched) memory.
  const whole = !encoded && Number.isInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    /** bytes copied into `whole`; once a chunk does not fit, the rest goes to `chunks` */
    let inWhole = 0;
    let settled = false;
    const finish = (error: unknown, value?: unknown) => {
      if (settled) return;
      settled = true;
      stream.removeAllListeners('data');
      if (error) reject(error);
      else resolve(value);
    };
    stream.on('data', (chunk: Buffer) => {
      if (whole !== null && chunks.length === 0 && inWhole + chunk.length <= whole.length) {
        chunk.copy(whole, inWhole);
        inWhole += chunk.length;
        received += chunk.length;
        return;
      }
      received += chunk.length;
      if (received > limits.maxBytes) {
        // Stop decoding at the limit: a gzip bomb never inflates past it.
        stream.pause();
        if (stream !== payload) stream.destroy();
        finish(tooLarge(limits.maxBytes));
        return;
      }
      chunks.push(chunk);
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
      let bytes: Buffer;
      if (whole !== null && chunks.length === 0) bytes = whole.subarray(0, inWhole);
      else if (whole !== null) bytes = Buffer.concat([whole.subarray(0, inWhole), ...chunks], received);
      else bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      chunks.length = 0;
      let text: string;
      try {
        text = strictUtf8.decode(bytes);
      } catch {
        finish(invalidJson('the body is not valid UTF-8'));
        return;
      }
      try {
        finish(null, JSON.parse(text));
      } catch (error) {
        finish(invalidJson(error instanceof SyntaxError ? error.message : 'the body is not valid JSON'));
      }
    });
  });
}

function invalidJson(detail: string): Problem {
  return new Problem('VALIDATION_FAILED', 'the body is not valid JSON', {
    errors: [{ pointer: '', code: 'invalid_json', detail }],
  });
}
