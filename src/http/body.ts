// Reads a JSON request body from the stream: media type first, then a size limit enforced while reading
// (on decoded bytes when gzip-encoded); parseJsonBody then checks strict UTF-8 and JSON.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Problem } from './problems.js';

export interface BodyLimits {
  maxBytes: number;
  /** the process's budget of body bytes in memory, and the request they are charged to */
  memory?: { budget: BodyMemory; holder: object };
}

/** Seconds a client refused for lack of body memory is asked to wait. */
const BUSY_RETRY_SECONDS = 5;

/**
 * The bytes of request bodies this process holds at once. A body is charged as it arrives (all of it at once when
 * Content-Length announces it) and released only when its request is answered, because the normalized catalogue
 * lives that long. Without it, N clients sending maximum-size bodies at once would need N × (body + normalized
 * catalogue) of memory; with it, at most MAX_BODY_BYTES_IN_FLIGHT worth of bodies is ever held.
 */
export class BodyMemory {
  #inUse = 0;
  readonly #held = new Map<object, number>();

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.#inUse;
  }

  /** Charges n more bytes to holder; false (and nothing charged) when that would pass the limit. */
  reserve(holder: object, n: number): boolean {
    if (this.#inUse + n > this.limit) return false;
    this.#inUse += n;
    this.#held.set(holder, (this.#held.get(holder) ?? 0) + n);
    return true;
  }

  release(holder: object): void {
    const n = this.#held.get(holder);
    if (n === undefined) return;
    this.#held.delete(holder);
    this.#inUse -= n;
  }
}

function busy(): Problem {
  return new Problem('SERVICE_UNAVAILABLE', 'the server is reading too many large bodies at once; nothing was changed', {
    headers: { 'retry-after': String(BUSY_RETRY_SECONDS) },
  });
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

/** The body's Content-Encoding: none or gzip; any other is refused. */
function contentEncodingOf(request: IncomingMessage): 'identity' | 'gzip' {
  const encoding = String(request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return 'identity';
  if (encoding === 'gzip' || encoding === 'x-gzip') return 'gzip';
  throw new Problem('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding "${encoding}" is not supported; use gzip or none`);
}

function decodingStream(request: IncomingMessage, payload: Readable): Readable {
  if (contentEncodingOf(request) === 'identity') return payload;
  const gunzip = createGunzip();
  payload.on('error', (error) => gunzip.destroy(error));
  return payload.pipe(gunzip);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function tooLarge(limit: number): Problem {
  return new Problem('PAYLOAD_TOO_LARGE', `the body is larger than ${limit} bytes`, {
    headers: { connection: 'close' },
    max_bytes: limit,
  });
}

/**
 * A body read whole: the SHA-256 of its decoded bytes (what an Idempotency-Key's fingerprint is made of), and the
 * bytes, for one reader to take. Whether they are JSON is the reader's to find out (parseJsonBody), so that a large
 * body can be read piece by piece rather than as one string and one tree.
 */
export class ReceivedBody {
  #bytes: Buffer | null;

  constructor(
    readonly digest: string,
    bytes: Buffer,
  ) {
    this.#bytes = bytes;
  }

  /** The decoded bytes, handed over once: the body keeps no reference, so they go when their reader is done. */
  takeBytes(): Buffer {
    const bytes = this.#bytes;
    if (bytes === null) throw new Error('the body was already taken');
    this.#bytes = null;
    return bytes;
  }
}

/**
 * A body parsed whole: the JSON value, or the 422 problem saying why it is not JSON (not UTF-8, or not JSON).
 * Parse failures are values here so that an idempotent request can still store them as its answer.
 */
export type ParsedBody = { ok: true; value: unknown } | { ok: false; problem: Problem };

export function parseJsonBody(bytes: Uint8Array): ParsedBody {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { ok: false, problem: invalidJson('the body is not valid UTF-8') };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: invalidJson(error instanceof SyntaxError ? error.message : 'the body is not valid JSON') };
  }
}

/** Refuses (throws) bodies of the wrong media type, too large, not gzip-decodable, or not JSON. */
export async function readJsonBody(request: IncomingMessage, payload: Readable, limits: BodyLimits): Promise<unknown> {
  const body = await readJsonBodyWithDigest(request, payload, limits);
  const parsed = parseJsonBody(body.takeBytes());
  if (!parsed.ok) throw parsed.problem;
  return parsed.value;
}

/**
 * What the headers alone tell about a body: its media type (415) and, when it is not encoded, its announced size
 * (413). Checked again when the body is read, for callers that read one without checking first.
 */
export function checkBodyHeaders(request: IncomingMessage, maxBytes: number): void {
  checkJsonMediaType(request.headers['content-type']);
  const encoded = contentEncodingOf(request) !== 'identity';
  const declared = Number(request.headers['content-length']);
  if (!encoded && Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
}

export function readJsonBodyWithDigest(request: IncomingMessage, payload: Readable, limits: BodyLimits): Promise<ReceivedBody> {
  try {
    checkBodyHeaders(request, limits.maxBytes);
  } catch (error) {
    return Promise.reject(error);
  }
  const declared = Number(request.headers['content-length']);
  const encoded = String(request.headers['content-encoding'] ?? '').length > 0;
  const stream = decodingStream(request, payload);
  const memory = limits.memory;
  // Announced bodies are charged whole before the first byte is read; others chunk by chunk.
  const announced = !encoded && Number.isInteger(declared) && declared > 0;
  let refused = memory !== undefined && announced && !memory.budget.reserve(memory.holder, declared);
  return new Promise((resolve, reject) => {
    // An announced body is copied into one buffer of its length as it arrives, so that neither its chunks nor a
    // joined copy of them are held; any other body is kept as chunks and joined at its end.
    let whole: Buffer | null = announced && !refused ? Buffer.allocUnsafe(declared) : null;
    const chunks: Buffer[] = [];
    const hash = createHash('sha256');
    let received = 0;
    let settled = false;
    const finish = (error: unknown, value?: ReceivedBody) => {
      if (settled) return;
      settled = true;
      // The stream's listeners live as long as the request: they must not keep the bytes, which value holds if any.
      whole = null;
      chunks.length = 0;
      stream.removeAllListeners('data');
      if (error) reject(error);
      else resolve(value!);
    };
    // A refused body is still read, into nothing, so that the client (which is still sending) reliably receives
    // the 503 instead of a reset connection. Reading it costs no memory; REQUEST_TIMEOUT_MS bounds its time.
    const discardRest = () => {
      refused = true;
      whole = null;
      chunks.length = 0;
      memory?.budget.release(memory.holder);
      if (stream !== payload) {
        // Stop inflating: the compressed rest is read raw and dropped.
        payload.unpipe(stream as Transform);
        stream.removeAllListeners('data');
        stream.destroy();
        if (payload.readableEnded) {
          finish(busy());
          return;
        }
        let discarded = 0;
        payload.on('data', (chunk: Buffer) => {
          discarded += chunk.length;
          if (discarded > limits.maxBytes) finish(busy());
        });
        payload.on('end', () => finish(busy()));
        payload.resume();
      }
    };
    if (refused) discardRest();
    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.maxBytes) {
        // Stop decoding at the limit: a gzip bomb never inflates past it.
        stream.pause();
        if (stream !== payload) stream.destroy();
        finish(refused ? busy() : tooLarge(limits.maxBytes));
        return;
      }
      if (refused) return;
      if (memory !== undefined && !announced && !memory.budget.reserve(memory.holder, chunk.length)) {
        discardRest();
        return;
      }
      if (whole !== null) chunk.copy(whole, received - chunk.length);
      else chunks.push(chunk);
      hash.update(chunk);
    });
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (stream !== payload && error.code?.startsWith('Z_')) {
        finish(new Problem('VALIDATION_FAILED', 'the gzip body could not be decoded', {
          errors: [{ pointer: '', code: 'invalid_gzip', detail: 'the body is not valid gzip data' }],
        }));
      } else {
        // The client went away mid-body (ECONNRESET, "aborted"): a fault of the request, not of the database.
        finish(new Problem('BAD_REQUEST', 'the connection closed before the body was complete', {
          headers: { connection: 'close' },
        }));
      }
    });
    stream.on('end', () => {
      if (settled) return;
      if (refused) {
        finish(busy());
        return;
      }
      // node:http ends an announced body only after Content-Length bytes, so `whole` is full here.
      const bytes = whole !== null ? whole.subarray(0, received) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      finish(null, new ReceivedBody(hash.digest('hex'), bytes));
    });
  });
}

function invalidJson(detail: string): Problem {
  return new Problem('VALIDATION_FAILED', 'the body is not valid JSON', {
    errors: [{ pointer: '', code: 'invalid_json', detail }],
  });
}
