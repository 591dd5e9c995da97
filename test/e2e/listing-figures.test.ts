// Figures beside the listing that are approximate by design (the home page's category counts, the filter choices)
// are computed at most every 5 seconds per process; the products listed are always read afresh.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboard, product, sync, type Onboarded } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';
import { until } from '../support/until.js';

describe('listing figures (PostgreSQL store)', () => {
  let server: TestServer;
  let host: Onboarded;

  beforeAll(async () => {
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '10' } });
    host = await onboard(server, 'Figures Hosting');
    expect((await sync(server, host.key, [product('s-1', { category: 'storage', datacenter_locations: ['Oslo'] })])).status).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const page = async (path: string) => (await fetch(`${server.url}${path}`)).text();

  it('catches up with a sync within 5 seconds, while the products themselves show at once', async () => {
    expect(await page('/')).toMatch(/Storage<\/a><\/h3><p class="muted">1 plan</);
    expect(await page('/categories/storage')).toContain('<option value="Oslo">');
    const synced = [
      product('s-1', { category: 'storage', datacenter_locations: ['Oslo'] }),
      product('s-2', { category: 'storage', datacenter_locations: ['Reykjavik'] }),
    ];
    expect((await sync(server, host.key, synced)).status).toBe(200);
    const after = performance.now();
    expect(await page('/categories/storage')).toContain('Cloud VPS s-2');
    await until(async () => /Storage<\/a><\/h3><p class="muted">2 plans</.test(await page('/')), 10_000, 'the new count on the home page');
    await until(async () => (await page('/categories/storage')).includes('<option value="Reykjavik">'), 10_000, 'the new location among the filters');
    // 5 seconds, and the moment one computation takes.
    expect(performance.now() - after).toBeLessThan(7_000);
  });
});
