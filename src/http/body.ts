// Reads a JSON request body from the stream: media type first, then a size limit enforced while reading (on decoded
// bytes when gzip-encoded), within the process's budget of body memory. Whether the bytes are UTF-8 JSON is their
// reader's to find out (catalog/validate.ts), so that a large body is read piece by piece, never as one tree.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { Problem, retryAfter } from './problems.js';

export interface BodyLimits {
  maxBytes: number;
  /** the process's budget of body bytes in memory, the request they are charged to, and its provider */
  memory?: { budget: BodyMemory; holder: object; group?: string | number };
  /** the slowest a body may arrive, on average, once `graceMs` have passed; slower is cut off with 408 */
  minBytesPerSecond?: number;
  graceMs?: number;
}

/**
 * The slowest average rate, in bytes a second over the wire, a request body may arrive at once UPLOAD_GRACE_SECONDS
 * have passed; slower is cut off with 408. A billing system on the slowest link sends far faster; a client that
 * trickles holds a connection and its part of the body memory for nothing.
 */
export const MIN_UPLOAD_BYTES_PER_S = 8 * 1024;

/** How long a body may arrive at any rate before the minimum applies: a connection's first seconds may stall. */
export const UPLOAD_GRACE_SECONDS = 10;

/** The first charge of a body; each further one doubles what is charged, so a body costs at most twice its arrival. */
const FIRST_CHARGE_BYTES = 64 * 1024;

export type Refusal = 'process' | 'group';

/**
 * The bytes of request bodies this process holds at once, over all requests and per provider. A body is charged by
 * what has arrived (in doubling steps, so that accounting stays cheap), never by what its Content-Length
 * announces, and released only when its request is answered, because the normalized catalogue lives that long.
 * Without it, N clients sending maximum-size bodies at once would need N × (body + normalized catalogue) of
 * memory; with it, at most `limit` worth of bodies is ever held, and one provider at most `groupLimit` of it, so
 * that one provider's uploads (or a trickle announcing huge bodies) cannot take the budget from the others.
 */
export class BodyMemory {
  #inUse = 0;
  readonly #held = new Map<object, { bytes: number; group: string | number | undefined }>();
  readonly #groups = new Map<string | number, number>();

  constructor(
    readonly limit: number,
    readonly groupLimit: number = limit,
  ) {}

  get inUse(): number {
    return this.#inUse;
  }

  /** Bytes charged to one provider's requests. */
  inUseBy(group: string | number): number {
    return this.#groups.get(group) ?? 0;
  }

  /** Charges n more bytes to holder (and its group); what would pass a limit charges nothing and says which. */
  reserve(holder: object, n: number, group?: string | number): Refusal | null {
    if (this.#inUse + n > this.limit) return 'process';
    if (group !== undefined && this.inUseBy(group) + n > this.groupLimit) return 'group';
    this.#inUse += n;
    const held = this.#held.get(holder);
    if (held) held.bytes += n;
    else this.#held.set(holder, { bytes: n, group });
    if (group !== undefined) this.#groups.set(group, this.inUseBy(group) + n);
    return null;
  }

  release(holder: object): void {
    const held = this.#held.get(holder);
    if (held === undefined) return;
    this.#held.delete(holder);
    this.#inUse -= held.bytes;
    if (held.group !== undefined) {
      const left = this.inUseBy(held.group) - held.bytes;
      if (left > 0) this.#groups.set(held.group, left);
      else this.#groups.delete(held.group);
    }
  }
}

function busy(refusal: Refusal): Problem {
  return refusal === 'group'
    ? new Problem(
        'RATE_LIMITED',
        "this provider's other uploads already hold its share of the server's body memory; nothing was changed",
        {
          headers: retryAfter(),
        },
      )
    : new Problem('SERVICE_UNAVAILABLE', 'the server is reading too many large bodies at once; nothing was changed', {
        headers: retryAfter(),
      });
}

function tooSlow(minBytesPerSecond: number): Problem {
  return new Problem(
    'REQUEST_TIMEOUT',
    `the body arrived slower than ${minBytesPerSecond} bytes per second; nothing was changed`,
    {
      headers: { connection: 'close' },
    },
  );
}

/** application/json with any parameters, as long as a charset, if given, is UTF-8. */
function checkJsonMediaType(contentType: string | undefined): void {
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
  const encoding = String(request.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
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

function tooLarge(limit: number): Problem {
  return new Problem('PAYLOAD_TOO_LARGE', `the body is larger than ${limit} bytes`, {
    headers: { connection: 'close' },
    max_bytes: limit,
  });
}

/**
 * A body read whole: the SHA-256 of its decoded bytes (what an Idempotency-Key's fingerprint is made of), and the
 * bytes, for one reader to take.
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
 * What the headers alone tell about a body: its media type (415) and, when it is not encoded, its announced size
 * (413). Checked again when the body is read, for callers that read one without checking first.
 */
export function checkBodyHeaders(request: IncomingMessage, maxBytes: number): void {
  checkJsonMediaType(request.headers['content-type']);
  const encoded = contentEncodingOf(request) !== 'identity';
  const declared = Number(request.headers['content-length']);
  if (!encoded && Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
}

/** Refuses (throws a Problem for) bodies of the wrong media type, too large, not gzip-decodable, or over the budget. */
export function readJsonBody(request: IncomingMessage, payload: Readable, limits: BodyLimits): Promise<ReceivedBody> {
  try {
    checkBodyHeaders(request, limits.maxBytes);
  } catch (error) {
    return Promise.reject(error);
  }
  const declared = Number(request.headers['content-length']);
  const encoded = String(request.headers['content-encoding'] ?? '').length > 0;
  const stream = decodingStream(request, payload);
  const memory = limits.memory;
  const announced = !encoded && Number.isInteger(declared) && declared > 0;
  let refused: Refusal | null = null;
  return new Promise((resolve, reject) => {
    // An announced body is copied into one buffer of its length as it arrives (allocated with its first byte, and
    // resident only as far as it is written), so that neither its chunks nor a joined copy of them are held; any
    // other body is kept as chunks and joined at its end.
    let whole: Buffer | null = null;
    const chunks: Buffer[] = [];
    const hash = createHash('sha256');
    let received = 0;
    // Bytes charged to the budget so far: at least what has arrived (decoded), at most twice as much.
    let charged = 0;
    let settled = false;
    const startedAt = Date.now();
    const { minBytesPerSecond = 0, graceMs = 0 } = limits;
    // Bytes as they came over the wire (before gzip), for the minimum rate.
    let payloadBytes = 0;
    if (stream !== payload) payload.on('data', (chunk: Buffer) => (payloadBytes += chunk.length));
    // A trickle is cut off once it is past its grace and below the minimum average rate.
    const pace =
      minBytesPerSecond > 0
        ? setInterval(
            () => {
              const elapsed = Date.now() - startedAt;
              if (elapsed > graceMs && payloadBytes < (minBytesPerSecond * elapsed) / 1000) {
                memory?.budget.release(memory.holder);
                finish(tooSlow(minBytesPerSecond));
              }
            },
            Math.max(100, Math.min(1000, graceMs / 4 || 1000)),
          )
        : null;
    pace?.unref();
    const finish = (error: unknown, value?: ReceivedBody) => {
      if (settled) return;
      settled = true;
      if (pace) clearInterval(pace);
      // The stream's listeners live as long as the request: they must not keep the bytes, which value holds if any.
      whole = null;
      chunks.length = 0;
      stream.removeAllListeners('data');
      if (error) reject(error);
      else resolve(value!);
    };
    /** Charges the budget up to `needed` bytes, in doubling steps; false once refused. */
    const charge = (needed: number): boolean => {
      if (memory === undefined || needed <= charged) return true;
      const step = Math.max(
        needed,
        Math.min(announced ? declared : limits.maxBytes, Math.max(FIRST_CHARGE_BYTES, charged * 2)),
      );
      const refusal = memory.budget.reserve(memory.holder, step - charged, memory.group);
      if (refusal === null) {
        charged = step;
        return true;
      }
      discardRest(refusal);
      return false;
    };
    // A refused body is still read, into nothing, so that the client (which is still sending) reliably receives
    // the 503 instead of a reset connection. Reading it costs no memory; REQUEST_TIMEOUT_MS bounds its time.
    const discardRest = (refusal: Refusal) => {
      refused = refusal;
      whole = null;
      chunks.length = 0;
      memory?.budget.release(memory.holder);
      if (stream !== payload) {
        // Stop inflating: the compressed rest is read raw and dropped.
        payload.unpipe(stream as Transform);
        stream.removeAllListeners('data');
        stream.destroy();
        if (payload.readableEnded) {
          finish(busy(refusal));
          return;
        }
        let discarded = 0;
        payload.on('data', (chunk: Buffer) => {
          discarded += chunk.length;
          if (discarded > limits.maxBytes) finish(busy(refusal));
        });
        payload.on('end', () => finish(busy(refusal)));
        payload.resume();
      }
    };
    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (stream === payload) payloadBytes = received;
      if (received > limits.maxBytes) {
        // Stop decoding at the limit: a gzip bomb never inflates past it.
        stream.pause();
        if (stream !== payload) stream.destroy();
        finish(refused ? busy(refused) : tooLarge(limits.maxBytes));
        return;
      }
      if (refused || !charge(received)) return;
      if (announced && whole === null) whole = Buffer.allocUnsafe(declared);
      if (whole !== null) chunk.copy(whole, received - chunk.length);
      else chunks.push(chunk);
      hash.update(chunk);
    });
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (stream !== payload && error.code?.startsWith('Z_')) {
        finish(
          new Problem('VALIDATION_FAILED', 'the gzip body could not be decoded', {
            errors: [{ pointer: '', code: 'invalid_gzip', detail: 'the body is not valid gzip data' }],
          }),
        );
      } else {
        // The client went away mid-body (ECONNRESET, "aborted"): a fault of the request, not of the database.
        finish(
          new Problem('BAD_REQUEST', 'the connection closed before the body was complete', {
            headers: { connection: 'close' },
          }),
        );
      }
    });
    stream.on('end', () => {
      if (settled) return;
      if (refused) {
        finish(busy(refused));
        return;
      }
      // node:http ends an announced body only after Content-Length bytes, so `whole` is full here.
      const bytes = whole !== null ? whole.subarray(0, received) : Buffer.concat(chunks, received);
      finish(null, new ReceivedBody(hash.digest('hex'), bytes));
    });
  });
}

/**
 * Makes a route scope read its own bodies, as ReceivedBody: media type, streaming size limit, gzip and strict limits
 * of time, within the process's budget of body memory, which a request gives back once it is answered (or its
 * client is gone). A provider's requests share its part of the budget.
 */
export function readBodiesWithin(
  scope: FastifyInstance,
  config: Pick<
    Config,
    'maxBodyBytes' | 'maxBodyBytesInFlight' | 'maxBodyBytesPerHost' | 'minUploadBytesPerS' | 'uploadGraceMs'
  >,
): void {
  const memory = new BodyMemory(config.maxBodyBytesInFlight, config.maxBodyBytesPerHost);
  scope.addHook('onRequest', async (request, reply) => void reply.raw.once('close', () => memory.release(request)));
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', async (request: FastifyRequest, payload: Readable) =>
    readJsonBody(request.raw, payload, {
      maxBytes: config.maxBodyBytes,
      memory: { budget: memory, holder: request, ...(request.provider ? { group: request.provider.hostId } : {}) },
      minBytesPerSecond: config.minUploadBytesPerS,
      graceMs: config.uploadGraceMs,
    }),
  );
}
