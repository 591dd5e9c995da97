// Resource limits against the running server: slow clients are cut off by the configured deadlines, bodies are
// measured while they stream, and a payload full of mistakes costs a bounded answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { rawExchange, syncHead } from '../support/raw-http.js';
import { startInProcessServer, type ServerUnderTest } from '../support/server.js';
import { databaseDigest } from '../support/state.js';

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const KEEP_ALIVE_TIMEOUT_MS = 500;
const MAX_BODY_BYTES = 4 * 1024 * 1024;

describe('resource limits', () => {
  let server: ServerUnderTest;
  let host: Onboarded;

  beforeAll(async () => {
    server = await startInProcessServer('postgres', {
      env: {
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
        MAX_BODY_BYTES: String(MAX_BODY_BYTES),
        SYNC_MAX_PER_WINDOW: '1000',
      },
      config: { headersTimeoutMs: HEADERS_TIMEOUT_MS },
    });
    host = await onboard(server, 'Limits');
    expect((await sync(server, host.key, [product('keep')])).status).toBe(200);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('cuts off a client that trickles its body one byte a second, with 408 and nothing changed', async () => {
    const before = await databaseDigest(server);
    const body = JSON.stringify({ products: [product('slow')] });
    const trickle = [syncHead(host.key, Buffer.byteLength(body)), ...body.slice(0, 30).split('')];
    const exchange = await rawExchange(server.port, trickle, { gapMs: 1_000, deadlineMs: 25_000 });
    // Closed by the server while the client was still trickling.
    expect(exchange.closedAfterMs).not.toBeNull();
    expect(exchange.written).toBeLessThan(trickle.join('').length);
    expect(exchange.responses.map((r) => r.status)).toEqual([408]);
    expect(exchange.responses[0]!.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(exchange.responses[0]!.body)).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
    expect(await databaseDigest(server)).toBe(before);
    expect((await call(server, 'GET', '/healthz')).status).toBe(200);
  });

  it('cuts off a client that trickles its headers one byte a second', async () => {
    const head = syncHead(host.key, 10);
    const trickle = [head.slice(0, 20), ...head.slice(20, 40).split('')];
    const exchange = await rawExchange(server.port, trickle, { gapMs: 1_000, deadlineMs: 15_000 });
    // Closed by the server before the client was done with its headers.
    expect(exchange.closedAfterMs).not.toBeNull();
    expect(exchange.written).toBeLessThan(trickle.join('').length);
    expect(exchange.responses.map((r) => r.status)).toEqual([408]);
  });

  it('closes a connection that never sends a byte', async () => {
    const exchange = await rawExchange(server.port, [], { deadlineMs: 15_000 });
    expect(exchange.closedAfterMs).not.toBeNull();
  });

  it('closes an idle keep-alive connection after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const exchange = await rawExchange(server.port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'], {
      deadlineMs: 10_000,
    });
    expect(exchange.responses.map((r) => r.status)).toEqual([200]);
    expect(exchange.closedAfterMs).not.toBeNull();
    // Kept open for the timeout, not closed with the answer.
    expect(exchange.closedAfterMs!).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 50);
  });

  it('refuses an announced oversized body before reading it', async () => {
    const exchange = await rawExchange(server.port, [syncHead(host.key, MAX_BODY_BYTES + 1)], { deadlineMs: 5_000 });
    expect(exchange.responses.map((r) => r.status)).toEqual([413]);
    expect(JSON.parse(exchange.responses[0]!.body)).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      max_bytes: MAX_BODY_BYTES,
    });
  });

  it('cuts off an unannounced (chunked) body once it passes MAX_BODY_BYTES, long before the client is done', async () => {
    const before = await databaseDigest(server);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    const total = 64;
    const parts = [
      syncHead(host.key, null, ['Transfer-Encoding: chunked']),
      ...Array.from({ length: total }, () => framed),
    ];
    const exchange = await rawExchange(server.port, parts, { gapMs: 20, deadlineMs: 20_000 });
    expect(exchange.responses.map((r) => r.status)).toEqual([413]);
    expect(exchange.closedAfterMs).not.toBeNull();
    // The server stopped listening well before the 16 MiB the client meant to send.
    expect(exchange.written).toBeLessThan(total * framed.length);
    expect(await databaseDigest(server)).toBe(before);
  });

  it('lists at most 100 errors of a payload with 150 000, and stops early', async () => {
    const before = await databaseDigest(server);
    const broken = Array.from({ length: 50_000 }, (_, k) => ({
      external_id: `b${k}`,
      name: '',
      category: 'nope',
      price: -1,
    }));
    const answer = await sync(server, host.key, broken);
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toHaveLength(100);
    expect(answer.body.truncated).toBe(true);
    expect(answer.body.detail).toMatch(/^more than 100 problem/);
    expect(await databaseDigest(server)).toBe(before);
  });
});
