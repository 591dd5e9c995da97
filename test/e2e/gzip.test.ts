// gzip request bodies (contract sections 3 and 8): accepted, and the size limit applies to the decoded bytes while
// decoding, so that a gzip bomb is cut off at the limit, long before the rest of it has even arrived.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product } from '../support/api.js';
import { checkAgainstDocument } from '../support/openapi-check.js';
import { rawExchange, syncHead } from '../support/raw-http.js';
import { startServer, type TestServer } from '../support/server.js';

const MAX_BODY_BYTES = 1024 * 1024;

// Decoding happens before the store is touched: one store is enough, the one every run tests.
describe('gzip bodies', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer('embedded', { env: { MAX_BODY_BYTES: String(MAX_BODY_BYTES) } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('accepts a gzip-compressed catalogue', async () => {
    const host = await onboard(server, 'Gzip Hosting');
    const body = gzipSync(
      JSON.stringify({
        products: [product('a'), product('b', { specs: JSON.parse('{"__proto__": "kept", "constructor": 1}') })],
      }),
    );
    const answer = await call(server, 'POST', '/api/v1/sync/products', {
      token: host.key,
      body,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.summary.created).toBe(2);
    const listing = await call(server, 'GET', '/api/v1/products', { token: host.key });
    expect(listing.body.products[1].specs).toEqual(JSON.parse('{"__proto__": "kept", "constructor": "1"}'));
    expect(Object.keys(listing.body.products[1].specs)).toEqual(['__proto__', 'constructor']);
  });

  it('cuts a gzip bomb (1 GiB of zeros) off with 413 at the decoded limit, before the client has sent it all', async () => {
    const host = await onboard(server, 'Bomb Hosting');
    // gzip members may be concatenated: 64 members of 16 MiB of zeros each decode to 1 GiB from about 1 MB.
    const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
    const members = Array.from({ length: 64 }, () => member);
    const bomb = Buffer.concat(members);
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);

    // Sent one member at a time: the first alone decodes past the limit.
    const head = syncHead(host.key, bomb.length, ['Content-Encoding: gzip']);
    const exchange = await rawExchange(server.port, [head, ...members], { gapMs: 50, deadlineMs: 30_000 });
    expect(exchange.responses.map((r) => r.status)).toEqual([413]);
    const raw = exchange.responses[0]!;
    const problem = JSON.parse(raw.body);
    expect(problem.code).toBe('PAYLOAD_TOO_LARGE');
    expect(problem.max_bytes).toBe(MAX_BODY_BYTES);
    const answer = { status: raw.status, headers: new Headers(raw.headers), body: problem, text: raw.body };
    await checkAgainstDocument(server.url, 'POST', '/api/v1/sync/products', answer);
    // The server stopped reading (and decoding) at the limit: most of the bomb was never taken.
    expect(exchange.closedAfterMs).not.toBeNull();
    expect(exchange.written).toBeLessThan(bomb.length / 2);

    // Nothing was applied, and the server still answers.
    const runs = await call(server, 'GET', '/api/v1/sync/runs', { token: host.key });
    expect(runs.body.runs).toEqual([]);
  });

  it('refuses a body that is not gzip although it says so (422 invalid_gzip)', async () => {
    const host = await onboard(server, 'Not Gzip Hosting');
    const answer = await call(server, 'POST', '/api/v1/sync/products?dry_run=true', {
      token: host.key,
      body: JSON.stringify({ products: [product('a')] }),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors[0].code).toBe('invalid_gzip');
  });
});
