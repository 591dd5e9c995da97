// gzip request bodies (contract sections 3 and 8): accepted, and the size limit applies to the decoded bytes while
// decoding, so that a gzip bomb is cut off at once without the server's memory growing.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product } from '../support/api.js';
import { checkAgainstDocument } from '../support/openapi-check.js';
import { startServer, type TestServer } from '../support/server.js';

const MAX_BODY_BYTES = 1024 * 1024;

function residentBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

/** Sends raw bytes; resolves with the answer even if the server closes the connection before taking them all. */
function post(server: TestServer, key: string, body: Buffer, headers: Record<string, string>) {
  return new Promise<{ status: number; text: string; headers: Headers }>((resolve, reject) => {
    const request = httpRequest(`${server.url}/api/v1/sync/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-length': String(body.length), ...headers },
    });
    let answered = false;
    request.on('response', (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const h = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') h.set(name, value);
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString(), headers: h });
      });
    });
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    request.end(body);
  });
}

// Decoding happens before the store is touched: one store is enough.
describe('gzip bodies', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer('postgres', { env: { MAX_BODY_BYTES: String(MAX_BODY_BYTES), DRY_RUN_MAX_PER_WINDOW: '100' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('accepts a gzip-compressed catalogue', async () => {
    const host = await onboard(server, 'Gzip Hosting');
    const body = gzipSync(JSON.stringify({ products: [product('a'), product('b', { specs: JSON.parse('{"__proto__": "kept", "constructor": 1}') })] }));
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

  it('cuts a gzip bomb (1 GiB of zeros) off with 413 at the decoded limit, quickly and without growing', async () => {
    const host = await onboard(server, 'Bomb Hosting');
    // gzip members may be concatenated: 64 members of 16 MiB of zeros each decode to 1 GiB from about 1 MB.
    const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 64 }, () => member));
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);

    const pid = server.process().pid!;
    const before = residentBytes(pid);
    const started = Date.now();
    const answer = await post(server, host.key, bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    const elapsed = Date.now() - started;
    const after = residentBytes(pid);

    expect(answer.status, answer.text).toBe(413);
    const problem = JSON.parse(answer.text);
    expect(problem.code).toBe('PAYLOAD_TOO_LARGE');
    expect(problem.max_bytes).toBe(MAX_BODY_BYTES);
    await checkAgainstDocument(server.url, 'POST', '/api/v1/sync/products', { ...answer, body: problem });
    expect(elapsed).toBeLessThan(5_000);
    expect(after - before).toBeLessThan(64 * 1024 * 1024);

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
