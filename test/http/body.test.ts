// The body reader's memory budget: a body that does not fit is read into nothing and refused with 503.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BodyMemory, readJsonBody } from '../../src/http/body.js';
import { Problem } from '../../src/http/problems.js';

function requestWith(headers: Record<string, string>): IncomingMessage {
  return { headers: { 'content-type': 'application/json', ...headers } } as unknown as IncomingMessage;
}

/** A payload stream in small pieces, remembering whether it was read to its end. */
function payloadOf(bytes: Buffer): Readable & { drained: () => boolean } {
  let ended = false;
  const pieces = Array.from({ length: Math.ceil(bytes.length / 64) }, (_, k) => bytes.subarray(k * 64, (k + 1) * 64));
  const stream = Readable.from(pieces, { objectMode: false }) as Readable & { drained: () => boolean };
  stream.on('end', () => (ended = true));
  stream.drained = () => ended;
  return stream;
}

async function refusal(promise: Promise<unknown>): Promise<Problem> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
  throw new Error('the body was accepted');
}

const body = Buffer.from(
  JSON.stringify({ products: Array.from({ length: 20 }, (_, k) => ({ external_id: `p${k}` })) }),
);

describe('readJsonBody within a memory budget', () => {
  it('reads a body that fits and charges it to its request until released', async () => {
    const budget = new BodyMemory(body.length);
    const holder = {};
    const read = await readJsonBody(requestWith({ 'content-length': String(body.length) }), payloadOf(body), {
      maxBytes: 1 << 20,
      memory: { budget, holder },
    });
    expect(read.takeBytes()).toEqual(body);
    expect(budget.inUse).toBe(body.length);
    budget.release(holder);
    expect(budget.inUse).toBe(0);
  });

  it.each([
    ['a body announced by Content-Length', () => ({ 'content-length': String(body.length) }), () => body],
    ['a chunked body', () => ({}), () => body],
    ['a gzip-encoded body', () => ({ 'content-encoding': 'gzip' }), () => gzipSync(body)],
  ])(
    'refuses %s that does not fit with 503 and Retry-After, after reading it to its end',
    async (_, headers, bytes) => {
      const budget = new BodyMemory(body.length);
      expect(budget.reserve({}, body.length - 100)).toBeNull();
      const payload = payloadOf(bytes());
      const problem = await refusal(
        readJsonBody(requestWith(headers()), payload, { maxBytes: 1 << 20, memory: { budget, holder: {} } }),
      );
      expect(problem.code).toBe('SERVICE_UNAVAILABLE');
      expect(problem.extra.headers?.['retry-after']).toBe('5');
      expect(payload.drained()).toBe(true);
      expect(budget.inUse).toBe(body.length - 100);
    },
  );
});

describe('readJsonBody hands over the bytes as sent', () => {
  const large = Buffer.from(
    JSON.stringify({
      products: Array.from({ length: 60_000 }, (_, k) => ({ external_id: `product-${k}`, name: 'x'.repeat(40) })),
    }),
  );
  const digest = createHash('sha256').update(large).digest('hex');
  /** A payload in pieces of 64 KiB, as a socket gives them. */
  const streamOf = (bytes: Buffer) =>
    Readable.from(
      Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, k) => bytes.subarray(k * 65_536, (k + 1) * 65_536)),
      { objectMode: false },
    );

  it.each([
    ['announced by Content-Length', () => ({ 'content-length': String(large.length) }), () => large],
    ['chunked', () => ({}), () => large],
    ['gzip-encoded', () => ({ 'content-encoding': 'gzip' }), () => gzipSync(large)],
  ])('a body of megabytes %s, byte for byte, with the digest of its decoded bytes', async (_, headers, bytes) => {
    expect(large.length).toBeGreaterThan(4 * 1024 * 1024);
    const read = await readJsonBody(requestWith(headers()), streamOf(bytes()), { maxBytes: 1 << 30 });
    expect(read.digest).toBe(digest);
    expect(read.takeBytes().equals(large)).toBe(true);
  });
});
