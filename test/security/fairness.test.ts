// No provider can starve the others of body memory: a body is charged by what has arrived, not by the
// Content-Length it announces; one provider holds at most its share of MAX_BODY_BYTES_IN_FLIGHT; a body that
// trickles in below MIN_UPLOAD_BYTES_PER_S is cut off with 408 once its grace has passed.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, type Onboarded } from '../support/api.js';
import { parseResponses, rawExchange, syncHead } from '../support/raw-http.js';
import { startInProcessServer, type ServerUnderTest } from '../support/server.js';

const MiB = 1024 * 1024;
const MAX_BODY_BYTES = MiB;

/** A catalogue of about `bytes` bytes of JSON. */
function catalogueOf(bytes: number, prefix: string): string {
  const count = Math.ceil(bytes / 15_500);
  return JSON.stringify({
    products: Array.from({ length: count }, (_, k) => product(`${prefix}-${k}`, { description: 'x'.repeat(15_000) })),
  });
}

/** Opens a connection and sends `parts`; the socket stays open until the test closes it. */
function openUpload(port: number, parts: string[]): Promise<{ socket: Socket; received: () => Buffer }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => {
      for (const part of parts) socket.write(part);
      resolve({ socket, received: () => Buffer.concat(chunks) });
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
  });
}

async function until<T>(probe: () => T | undefined, what: string, deadlineMs = 15_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('fair shares of body memory', () => {
  let server: ServerUnderTest;
  let noisy: Onboarded;
  let quiet: Onboarded;

  beforeAll(async () => {
    server = await startInProcessServer('postgres', {
      env: {
        MAX_BODY_BYTES: String(MAX_BODY_BYTES),
        MAX_BODY_BYTES_IN_FLIGHT: String(2 * MAX_BODY_BYTES),
        REQUEST_TIMEOUT_MS: '60000',
        SYNC_MAX_PER_WINDOW: '100',
      },
      config: { minUploadBytesPerS: 1000, uploadGraceMs: 2_000 },
    });
    noisy = await onboard(server, 'Noisy Neighbour');
    quiet = await onboard(server, 'Quiet Neighbour');
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("serves another provider's sync while two connections announce the largest bodies and trickle", async () => {
    // Each announces MAX_BODY_BYTES and sends one byte: charged by announcement, they would hold the whole budget.
    const trickles = await Promise.all(
      [0, 1].map(() => openUpload(server.port, [syncHead(noisy.key, MAX_BODY_BYTES), '{'])),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const body = catalogueOf(0.9 * MAX_BODY_BYTES, 'quiet');
    const answer = await call(server, 'POST', '/api/v1/sync/products', {
      token: quiet.key,
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status, answer.text).toBe(200);
    expect((await call(server, 'GET', '/api/v1/directory/products?limit=1')).status).toBe(200);

    // Past their grace, below the minimum rate: cut off with 408 as problem+json, and the connection closed.
    for (const trickle of trickles) {
      const [response] = await until(() => {
        const responses = parseResponses(trickle.received());
        return responses.length > 0 ? responses : undefined;
      }, 'the 408');
      expect(response!.status).toBe(408);
      expect(response!.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(JSON.parse(response!.body)).toMatchObject({
        code: 'REQUEST_TIMEOUT',
        status: 408,
        instance: '/api/v1/sync/products',
      });
      await until(
        () => (trickle.socket.destroyed || trickle.socket.readableEnded ? true : undefined),
        'the connection to close',
      );
      trickle.socket.destroy();
    }
  });

  it("refuses one provider's upload past its share with 429 while another provider's is applied", async () => {
    const body = catalogueOf(0.7 * MAX_BODY_BYTES, 'share');
    const bytes = Buffer.from(body);
    // The noisy provider's first upload: all but its last byte, then a pause (well above the minimum rate so far).
    const holding = await openUpload(server.port, [
      syncHead(noisy.key, bytes.length),
      bytes.subarray(0, -1).toString('latin1'),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Its second upload at once would pass its share (MAX_BODY_BYTES_IN_FLIGHT / 2): refused for this provider only.
    const second = await rawExchange(server.port, [syncHead(noisy.key, bytes.length), bytes], { deadlineMs: 10_000 });
    const refused = second.responses[0]!;
    expect(refused.status, refused.body).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(JSON.parse(refused.body).detail).toContain("provider's other uploads");
    // The other provider's upload of the same size is applied meanwhile.
    const other = await call(server, 'POST', '/api/v1/sync/products', {
      token: quiet.key,
      body: catalogueOf(0.7 * MAX_BODY_BYTES, 'other'),
      headers: { 'content-type': 'application/json' },
    });
    expect(other.status, other.text).toBe(200);
    // The held upload completes normally.
    holding.socket.write(bytes.subarray(-1));
    const [done] = await until(() => {
      const responses = parseResponses(holding.received());
      return responses.length > 0 ? responses : undefined;
    }, 'the held upload to be answered');
    expect(done!.status, done!.body).toBe(200);
    holding.socket.destroy();
  });
});
