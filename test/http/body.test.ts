// The body reader's memory budget: a body that does not fit is read into nothing and refused with 503.
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

const body = Buffer.from(JSON.stringify({ products: Array.from({ length: 20 }, (_, k) => ({ external_id: `p${k}` })) }));

describe('readJsonBody within a memory budget', () => {
  it('reads a body that fits and charges it to its request until released', async () => {
    const budget = new BodyMemory(body.length);
    const holder = {};
    const read = await readJsonBody(requestWith({ 'content-length': String(body.length) }), payloadOf(body), { maxBytes: 1 << 20, memory: { budget, holder } });
    expect(read.takeBytes()).toEqual(body);
    expect(budget.inUse).toBe(body.length);
    budget.release(holder);
    expect(budget.inUse).toBe(0);
  });

  it.each([
    ['a body announced by Content-Length', () => ({ 'content-length': String(body.length) }), () => body],
    ['a chunked body', () => ({}), () => body],
    ['a gzip-encoded body', () => ({ 'content-encoding': 'gzip' }), () => gzipSync(body)],
  ])('refuses %s that does not fit with 503 and Retry-After, after reading it to its end', async (_, headers, bytes) => {
    const budget = new BodyMemory(body.length);
    expect(budget.reserve({}, body.length - 100)).toBeNull();
    const payload = payloadOf(bytes());
    const problem = await refusal(readJsonBody(requestWith(headers()), payload, { maxBytes: 1 << 20, memory: { budget, holder: {} } }));
    expect(problem.code).toBe('SERVICE_UNAVAILABLE');
    expect(problem.extra.headers?.['retry-after']).toBe('5');
    expect(payload.drained()).toBe(true);
    expect(budget.inUse).toBe(body.length - 100);
  });
});

describe('readJsonBody buffers', () => {
  // glibc raises its mmap threshold to the size of any mmapped block freed up to 32 MiB, for good (mallopt(3)): a body
  // of 4 MiB to 32 MiB is held in a block past 32 MiB, which does not move it (README, "Memory of a large sync").
  const large = Buffer.from(JSON.stringify({ products: Array.from({ length: 60_000 }, (_, k) => ({ external_id: `product-${k}`, name: 'x'.repeat(40) })) }));
  const medium = large.subarray(0, 1024 * 1024);
  /** A payload in pieces of 64 KiB, as a socket gives them. */
  const streamOf = (bytes: Buffer) =>
    Readable.from(Array.from({ length: Math.ceil(bytes.length / 65_536) }, (_, k) => bytes.subarray(k * 65_536, (k + 1) * 65_536)), { objectMode: false });

  it('holds a large body, announced or gzip, in a block past 32 MiB, and a smaller one in its own size', async () => {
    expect(large.length).toBeGreaterThan(4 * 1024 * 1024);
    const limits = { maxBytes: 1 << 30 };
    const announced = (await readJsonBody(requestWith({ 'content-length': String(large.length) }), streamOf(large), limits)).takeBytes();
    expect(announced.equals(large)).toBe(true);
    expect(announced.buffer.byteLength).toBeGreaterThan(32 * 1024 * 1024);
    const zipped = gzipSync(large);
    const gunzipped = (await readJsonBody(requestWith({ 'content-encoding': 'gzip' }), streamOf(zipped), limits)).takeBytes();
    expect(gunzipped.equals(large)).toBe(true);
    expect(gunzipped.buffer.byteLength).toBeGreaterThan(32 * 1024 * 1024);
    // V8 counts a buffer's whole block as external memory: a block of 32 MiB for each body of 1 MB made it collect
    // its heap far more often.
    const held = (await readJsonBody(requestWith({ 'content-length': String(medium.length) }), streamOf(medium), limits)).takeBytes();
    expect(held.equals(medium)).toBe(true);
    expect(held.buffer.byteLength).toBe(medium.length);
  });
});
