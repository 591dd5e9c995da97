// The public reads as other programs use them: CORS for any origin on public GETs only, brotli and gzip above a
// small size, ETag and Cache-Control on every public answer with 304 for a client that holds it.
import { get, request } from 'node:http';
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

function optionsRaw(server: TestServer, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: server.port, path, method: 'OPTIONS', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}

const PREFLIGHT = {
  origin: 'https://elsewhere.example',
  'access-control-request-method': 'GET',
  'access-control-request-headers': 'if-none-match',
};

const PUBLIC = [
  '/api/v1/categories',
  '/api/v1/openapi.json',
  '/api/v1/directory/products',
  '/api/v1/directory/hosts',
  '/api/v1/problems/rate-limited',
  '/',
  '/hosts',
  '/categories/vps_cloud',
  '/search?q=cloud',
  '/robots.txt',
  '/sitemap.xml',
  '/sitemaps/pages.xml',
  '/favicon.ico',
  '/favicon.svg',
];

describe.each(STORES)('public reads for programs (%s store)', (store) => {
  let server: TestServer;
  let host: Onboarded;

  beforeAll(async () => {
    server = await startServer(store);
    host = await onboard(server, `Public ${store}`);
    expect(
      (
        await sync(
          server,
          host.key,
          Array.from({ length: 12 }, (_, i) => product(`p-${i}`)),
        )
      ).status,
    ).toBe(200);
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
    const operator = await fetchRaw(server, '/admin/v1/hosts', {
      ...origin,
      authorization: `Bearer ${server.adminToken}`,
    });
    expect(operator.status).toBe(200);
    for (const answer of [provider, runs, operator]) {
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      // Nor may any cache keep them.
      expect(answer.headers['cache-control']).toBe('no-store');
    }
    expect((await admin(server, 'GET', '/hosts')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a preflight request for a public path, and refuses one for provider and admin paths without CORS headers', async () => {
    for (const path of [
      '/api/v1/directory/products',
      '/api/v1/categories',
      '/api/v1/openapi.json',
      '/products/prd_x',
    ]) {
      const answer = await optionsRaw(server, path, PREFLIGHT);
      expect(answer.status, path).toBe(204);
      expect(answer.headers['access-control-allow-origin'], path).toBe('*');
      expect(answer.headers['access-control-allow-methods'], path).toBe('GET, HEAD');
      expect(String(answer.headers['access-control-allow-headers']).toLowerCase(), path).toContain('if-none-match');
      expect(answer.headers['access-control-allow-credentials'], path).toBeUndefined();
    }
    const provider = [
      ['/api/v1/sync/products', 405],
      ['/api/v1/products', 405],
      ['/api/v1/sync/runs', 405],
      ['/admin/v1/hosts', 405],
      ['/api/v1/nowhere', 404],
    ] as const;
    for (const [path, status] of provider) {
      const answer = await optionsRaw(server, path, {
        ...PREFLIGHT,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      });
      expect(answer.status, path).toBe(status);
      expect(answer.headers['content-type'], path).toMatch(/^application\/problem\+json/);
      for (const name of Object.keys(answer.headers)) expect(name, path).not.toMatch(/^access-control-/);
    }
    // A CORS read of a provider route still gets no CORS header, even when the key is right.
    const withKey = await fetchRaw(server, '/api/v1/sync/runs', {
      origin: 'https://elsewhere.example',
      authorization: `Bearer ${host.key}`,
    });
    expect(withKey.status).toBe(200);
    expect(withKey.headers['access-control-allow-origin']).toBeUndefined();
    // What a browser app may read of a public answer besides the body.
    const exposed = await fetchRaw(server, '/api/v1/categories', { origin: 'https://elsewhere.example' });
    expect(String(exposed.headers['access-control-expose-headers']).toLowerCase()).toMatch(/etag.*x-request-id/);
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
    // A small answer is sent as it is, public or not.
    const small = await fetchRaw(server, '/healthz', { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
    const tiny = await fetchRaw(server, '/api/v1/directory/products?q=nomatchatall', { 'accept-encoding': 'br, gzip' });
    expect(tiny.status).toBe(200);
    expect(tiny.body.length).toBeLessThan(1024);
    expect(tiny.headers['content-encoding']).toBeUndefined();
    // Above the threshold, brotli is preferred when both are accepted, and gzip alone is honoured.
    for (const path of ['/', '/api/v1/categories', '/api/v1/directory/products']) {
      const both = await fetchRaw(server, path, { 'accept-encoding': 'gzip, deflate, br' });
      expect(both.headers['content-encoding'], path).toBe('br');
      expect(both.headers.vary, path).toMatch(/accept-encoding/i);
      const gzipOnly = await fetchRaw(server, path, { 'accept-encoding': 'gzip' });
      expect(gzipOnly.headers['content-encoding'], path).toBe('gzip');
      expect(brotliDecompressSync(both.body).equals(gunzipSync(gzipOnly.body)), path).toBe(true);
    }
    // Provider answers are not compressed.
    const provider = await fetchRaw(server, '/api/v1/products?limit=12', {
      'accept-encoding': 'br, gzip',
      authorization: `Bearer ${host.key}`,
    });
    expect(provider.body.length).toBeGreaterThan(1024);
    expect(provider.headers['content-encoding']).toBeUndefined();
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
