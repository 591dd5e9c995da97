// Debian's nginx, configured by the repository's own deploy/nginx/hostdir.conf, in front of hostdir: repeated public
// reads are answered from its cache without reaching hostdir, a sync shows through it within s-maxage +
// stale-while-revalidate, an answer older than that is never handed out, and provider and admin answers are never
// cached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNginx, type RunningNginx } from '../../bench/nginx.mjs';
import { PUBLIC_CACHE_CONTROL, SHARED_CACHE_SECONDS } from '../../src/http/freshness.js';
import { onboard, product, sync, type Onboarded } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';
import { until } from '../support/until.js';

/**
 * The documented bound: a shared cache hands out no copy older than s-maxage + stale-while-revalidate, and nginx
 * counts whole seconds (a copy stored at 12.9 s is taken to be from 12 s), which adds up to one.
 */
const BOUND_MS = (SHARED_CACHE_SECONDS.sMaxage + SHARED_CACHE_SECONDS.staleWhileRevalidate + 1) * 1000;

interface Seen {
  status: number;
  cache: string | null;
  requestId: string | null;
  cacheControl: string | null;
  text: string;
  headers: Headers;
}

describe('nginx as a shared cache in front of hostdir', () => {
  let server: TestServer;
  let nginx: RunningNginx;
  let host: Onboarded;

  beforeAll(async () => {
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '100', TRUST_PROXY: '127.0.0.1' } });
    nginx = await startNginx({ upstreams: [`127.0.0.1:${server.port}`] });
    host = await onboard(server, 'Cached Hosting');
    const synced = await sync(server, host.key, [
      product('vps-1', { name: 'Original Plan' }),
      product('vps-2', { name: 'Second Plan' }),
    ]);
    expect(synced.status).toBe(200);
  });

  afterAll(async () => {
    await nginx?.stop();
    await server?.stop();
  });

  async function get(path: string, headers: Record<string, string> = {}): Promise<Seen> {
    const response = await fetch(`${nginx.url}${path}`, { headers });
    return {
      status: response.status,
      cache: response.headers.get('x-cache-status'),
      requestId: response.headers.get('x-request-id'),
      cacheControl: response.headers.get('cache-control'),
      text: await response.text(),
      headers: response.headers,
    };
  }

  /** Requests hostdir itself answered for a route pattern, by its own /metrics. */
  async function answered(route: string): Promise<number> {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith('hostdir_http_requests_total{') && line.includes(`route="${route}"`))
      .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
  }

  it('answers repeated public reads from its cache, without asking hostdir again', async () => {
    const productId = JSON.parse((await get('/api/v1/directory/products?q=original')).text).products[0].id as string;
    const reads: Array<[string, string]> = [
      ['/', '/'],
      ['/categories/vps_cloud', '/categories/:slug'],
      ['/search?q=plan', '/search'],
      [`/products/${productId}`, '/products/:id'],
      ['/api/v1/directory/products?category=vps_cloud&sort=name', '/api/v1/directory/products'],
    ];
    for (const [path, route] of reads) {
      const before = await answered(route);
      const first = await get(path);
      expect(first.status, path).toBe(200);
      expect(first.cache, path).toBe('MISS');
      expect(first.cacheControl, path).toBe(PUBLIC_CACHE_CONTROL);
      const again = await get(path);
      const third = await get(path);
      for (const seen of [again, third]) {
        expect(seen.cache, path).toBe('HIT');
        expect(seen.text, path).toBe(first.text);
      }
      // hostdir answered the first read only.
      expect(await answered(route), path).toBe(before + 1);
      // Each answer has its own request id, also on a hit.
      expect(new Set([first.requestId, again.requestId, third.requestId]).size).toBe(3);
    }
  });

  it('keeps one copy per encoding hostdir chooses, whatever the spelling of Accept-Encoding', async () => {
    const path = '/api/v1/directory/products?sort=newest';
    const gzip = await get(path, { 'accept-encoding': 'gzip, deflate' });
    expect(gzip.cache).toBe('MISS');
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect((await get(path, { 'accept-encoding': 'deflate, gzip' })).cache).toBe('HIT');
    const brotli = await get(path, { 'accept-encoding': 'gzip, deflate, br' });
    expect(brotli.cache).toBe('MISS');
    expect(brotli.headers.get('content-encoding')).toBe('br');
    expect((await get(path, { 'accept-encoding': 'br' })).cache).toBe('HIT');
    const plain = await get(path, { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(JSON.parse(plain.text).products.length).toBe(2);
  });

  it('echoes a caller’s sane request id, also on a hit, and never one shaped like a key', async () => {
    const path = '/api/v1/categories';
    await get(path);
    const mine = await get(path, { 'x-request-id': 'caller-id-42' });
    expect(mine.cache).toBe('HIT');
    expect(mine.requestId).toBe('caller-id-42');
    const secret = await get(path, { 'x-request-id': host.key });
    expect(secret.requestId).not.toContain(host.key.slice(3, 19));
  });

  it('shows a sync once the copy it holds has aged, served meanwhile from the cache', async () => {
    const path = '/api/v1/directory/products?host=cached-hosting&limit=7';
    expect((await get(path)).cache).toBe('MISS');
    const renamed = await sync(server, host.key, [
      product('vps-1', { name: 'Renamed Plan' }),
      product('vps-2', { name: 'Second Plan' }),
    ]);
    expect(renamed.status).toBe(200);
    // hostdir itself shows it at once; the cache still holds the copy it took before the sync.
    expect(await fetch(`${server.url}${path}`).then((r) => r.text())).toContain('Renamed Plan');
    const cached = await get(path);
    expect(cached.cache).toBe('HIT');
    expect(cached.text).toContain('Original Plan');

    // That no copy outlives the bound is the next test's; this one follows a copy from fresh to refreshed.
    let seen = cached;
    const statuses = new Set<string>();
    await until(
      async () => {
        seen = await get(path);
        statuses.add(seen.cache ?? '');
        return seen.text.includes('Renamed Plan');
      },
      BOUND_MS + 30_000,
      'the sync to show through the cache',
      100,
    );
    // Between fresh and refreshed, the stale copy was handed out once, at once, while it was refreshed.
    expect([...statuses]).toContain('STALE');
    expect(seen.cache).toBe('HIT');
    expect(seen.status).toBe(200);
  });

  it('never hands out a copy older than the bound, even to the first request after a quiet spell', async () => {
    const path = '/api/v1/directory/products?host=cached-hosting&limit=9';
    expect((await get(path)).text).toContain('Renamed Plan');
    expect(
      (
        await sync(server, host.key, [
          product('vps-1', { name: 'Quiet Plan' }),
          product('vps-2', { name: 'Second Plan' }),
        ])
      ).status,
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, BOUND_MS + 100));
    const after = await get(path);
    expect(after.cache).toBe('EXPIRED');
    expect(after.text).toContain('Quiet Plan');
  });

  it('never caches provider or admin answers, nor a public read sent with credentials', async () => {
    const listing = () => get('/api/v1/products', { authorization: `Bearer ${host.key}` });
    const hosts = () => get('/admin/v1/hosts', { authorization: `Bearer ${server.adminToken}` });
    const providerBefore = await answered('/api/v1/products');
    const adminBefore = await answered('/admin/v1/hosts');
    for (const read of [listing, listing, hosts, hosts]) {
      const seen = await read();
      expect(seen.status).toBe(200);
      expect(seen.cache).toBeNull();
      expect(seen.cacheControl).toBe('no-store');
    }
    expect(await answered('/api/v1/products')).toBe(providerBefore + 2);
    expect(await answered('/admin/v1/hosts')).toBe(adminBefore + 2);

    // A provider reads its own write at once through the proxy, and so does the operator.
    const body = JSON.stringify({
      products: [product('vps-1', { name: 'Proxied Plan' }), product('vps-2', { name: 'Second Plan' })],
    });
    const through = await fetch(`${nginx.url}/api/v1/sync/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${host.key}`, 'content-type': 'application/json' },
      body,
    });
    expect(through.status).toBe(200);
    expect(through.headers.get('cache-control')).toBe('no-store');
    expect((await listing()).text).toContain('Proxied Plan');
    await onboard(server, 'Later Hosting');
    expect((await hosts()).text).toContain('later-hosting');

    // A public read with an Authorization header goes to hostdir and is not stored.
    const path = '/api/v1/directory/products?limit=3';
    const withKey = await get(path, { authorization: `Bearer ${host.key}` });
    expect(withKey.cache).toBe('BYPASS');
    expect((await get(path)).cache).toBe('MISS');
  });

  it('counts failed authentications by the client nginx names (TRUST_PROXY), not by nginx’s own address', async () => {
    const wrongKey = (client: string) =>
      fetch(`${nginx.url}/api/v1/products`, {
        headers: { authorization: `Bearer rk_${'0'.repeat(64)}`, 'x-forwarded-for': client },
      });
    // AUTH_FAILURE_LIMIT (20) failures, then the client is blocked.
    for (let attempt = 0; attempt < 20; attempt++) expect((await wrongKey('203.0.113.7')).status).toBe(401);
    const blocked = await wrongKey('203.0.113.7');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another client behind the same nginx, and the provider, are not blocked by it.
    expect((await wrongKey('203.0.113.8')).status).toBe(401);
    const listing = await fetch(`${nginx.url}/api/v1/products`, { headers: { authorization: `Bearer ${host.key}` } });
    expect(listing.status).toBe(200);
  });
});
