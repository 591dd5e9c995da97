// The public reads as other programs use them: CORS for any origin on public GETs only, brotli and gzip above a
// small size, ETag and Cache-Control on every public answer with 304 for a client that holds it.
import { get } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, onboard, product, sync, type Onboarded } from '../support/api.js';
import { STORES, startServer, type TestServer } from '../support/server.js';
import { PUBLIC_CACHE_CONTROL } from '../../src/http/freshness.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function fetchRaw(server: TestServer, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port: server.port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

const PUBLIC = ['/api/v1/categories', '/api/v1/openapi.json', '/api/v1/directory/products', '/api/v1/directory/hosts', '/api/v1/problems/rate-limited', '/', '/hosts'];

describe.each(STORES)('public reads for programs (%s store)', (store) => {
  let server: TestServer;
  let host: Onboarded;

  beforeAll(async () => {
    server = await startServer(store);
    host = await onboard(server, `Public ${store}`);
    expect((await sync(server, host.key, Array.from({ length: 12 }, (_, i) => product(`p-${i}`)))).status).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('lets any origin read every public answer, without credentials', async () => {
    for (const path of PUBLIC) {
      const answer = await fetchRaw(server, path, { origin: 'https://elsewhere.example' });
      expect(answer.status, path).toBe(200);
      expect(answer.headers['access-control-allow-origin'], path).toBe('*');
      expect(answer.headers['access-control-allow-credentials'], path).toBeUndefined();
    }
  });

  it('never lets another origin read provider or admin answers', async () => {
    const origin = { origin: 'https://elsewhere.example' };
    const provider = await fetchRaw(server, '/api/v1/products', { ...origin, authorization: `Bearer ${host.key}` });
    expect(provider.status).toBe(200);
    const runs = await fetchRaw(server, '/api/v1/sync/runs', { ...origin, authorization: `Bearer ${host.key}` });
    expect(runs.status).toBe(200);
    const operator = await fetchRaw(server, '/admin/v1/hosts', { ...origin, authorization: `Bearer ${server.adminToken}` });
    expect(operator.status).toBe(200);
    for (const answer of [provider, runs, operator]) {
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      // Nor may any cache keep them.
      expect(answer.headers['cache-control']).toBe('no-store');
    }
    expect((await admin(server, 'GET', '/hosts')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('compresses with brotli or gzip as asked, above 1 KiB, and the content is the same', async () => {
    const plain = await fetchRaw(server, '/api/v1/openapi.json');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const br = await fetchRaw(server, '/api/v1/openapi.json', { 'accept-encoding': 'br, gzip' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 5);
    const gz = await fetchRaw(server, '/api/v1/directory/products?limit=12', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.body).toString('utf8')).products).toHaveLength(12);
    const page = await fetchRaw(server, '/', { 'accept-encoding': 'gzip' });
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(page.body).toString('utf8')).toMatch(/^<!doctype html>/);
    // A small answer is sent as it is.
    const small = await fetchRaw(server, '/healthz', { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it('gives every public answer an ETag and Cache-Control, and 304 to a client that holds it, compressed or not', async () => {
    for (const path of PUBLIC) {
      for (const encoding of [{}, { 'accept-encoding': 'br' }] as Record<string, string>[]) {
        const first = await fetchRaw(server, path, encoding);
        const etag = first.headers.etag as string;
        expect(etag, path).toMatch(/^W\/".+"$/);
        expect(first.headers['cache-control'], path).toBe(PUBLIC_CACHE_CONTROL);
        const again = await fetchRaw(server, path, { ...encoding, 'if-none-match': etag });
        expect(again.status, path).toBe(304);
        expect(again.body.length).toBe(0);
      }
    }
  });
});
