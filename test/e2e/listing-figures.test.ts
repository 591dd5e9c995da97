// Figures beside the listing that are approximate by design (the home page's category counts, the host lists'
// product counts, the filter choices) are computed at most every 5 seconds per process; the products listed are
// always read afresh.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';
import { until } from '../support/until.js';

describe('listing figures (PostgreSQL store)', () => {
  let server: TestServer;
  let host: Onboarded;

  beforeAll(async () => {
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '10' } });
    host = await onboard(server, 'Figures Hosting');
    expect(
      (await sync(server, host.key, [product('s-1', { category: 'storage', datacenter_locations: ['Oslo'] })])).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const page = async (path: string) => (await fetch(`${server.url}${path}`)).text();

  it('catches up with a sync once its figures have aged, while the products themselves show at once', async () => {
    expect(await page('/')).toMatch(/Storage<\/a><\/h3><p class="muted">1 plan</);
    expect(await page('/categories/storage')).toContain('<option value="Oslo">');
    const synced = [
      product('s-1', { category: 'storage', datacenter_locations: ['Oslo'] }),
      product('s-2', { category: 'storage', datacenter_locations: ['Reykjavik'] }),
    ];
    expect((await sync(server, host.key, synced)).status).toBe(200);
    expect(await page('/categories/storage')).toContain('Cloud VPS s-2');
    await until(
      async () => /Storage<\/a><\/h3><p class="muted">2 plans</.test(await page('/')),
      10_000,
      'the new count on the home page',
    );
    await until(
      async () => (await page('/categories/storage')).includes('<option value="Reykjavik">'),
      10_000,
      'the new location among the filters',
    );
  });

  it("catches up with the host lists' product counts once aged, while a host's own answer counts afresh", async () => {
    const counted = async () =>
      (await call(server, 'GET', '/api/v1/directory/hosts?limit=100')).body.hosts.find(
        (h: { slug: string }) => h.slug === host.slug,
      ).product_count;
    const own = async () => (await call(server, 'GET', `/api/v1/directory/hosts/${host.slug}`)).body.host.product_count;
    const before = await counted();
    expect(await own()).toBe(before);
    const synced = Array.from({ length: before + 1 }, (_, k) =>
      product(`s-${k + 1}`, { category: 'storage', datacenter_locations: ['Oslo'] }),
    );
    expect((await sync(server, host.key, synced)).status).toBe(200);
    expect(await own()).toBe(before + 1);
    await until(async () => (await counted()) === before + 1, 10_000, 'the new count in the host list');
  });

  it('catches up with "more than 1 000 matches" once aged, counts fewer afresh, and lists the products as they are', async () => {
    const big = await onboard(server, 'Backup Bulk');
    const catalogue = (n: number) => Array.from({ length: n }, (_, k) => product(`b-${k}`, { category: 'backup' }));
    expect((await sync(server, big.key, catalogue(1001))).status).toBe(200);
    const counted = async () =>
      (await call(server, 'GET', '/api/v1/directory/products?category=backup&count=true&limit=1')).body.matches;
    expect(await counted()).toEqual({ count: 1000, more: true });

    expect((await sync(server, big.key, catalogue(3))).status).toBe(200);
    // The listing itself is read afresh: the host's page holds the 3 products left.
    const listed = await call(server, 'GET', `/api/v1/directory/hosts/${big.slug}?limit=100`);
    expect(listed.body.products).toHaveLength(3);
    await until(async () => (await counted()).count === 3, 10_000, 'the count of 3');
    expect(await counted()).toEqual({ count: 3, more: false });

    // A count within the cap is never kept: one more product shows in it at once.
    expect((await sync(server, big.key, catalogue(4))).status).toBe(200);
    expect(await counted()).toEqual({ count: 4, more: false });
  });
});
