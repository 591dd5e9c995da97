// Stock, end to end on both stores: what the sync endpoint takes and refuses, what a provider's listing and the
// directory's JSON answer, how pages mark sold-out and nearly sold-out plans, that sold-out plans come last in every
// sort (across pages), the in_stock filter, and sell-outs, restocks and new plans in the change feed and Atom feeds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Answer, type Onboarded } from '../support/api.js';
import { STORES, startInProcessServer, type ServerUnderTest } from '../support/server.js';

const text = async (server: ServerUnderTest, url: string) => {
  const response = await fetch(`${server.url}${url}`);
  return { status: response.status, body: await response.text() };
};

/**
 * The changes of the change feed made by the sync `syncId`, read page by page from the start. A sync shows in the feed
 * once every transaction that began before it on the PostgreSQL server has ended (other databases' too): the feed is
 * read again until it does.
 */
async function changesOf(server: ServerUnderTest, syncId: string): Promise<{ product_id: string; action: string }[]> {
  for (let tries = 0; ; tries++) {
    const changes: { product_id: string; action: string; sync_id: string }[] = [];
    let since: string | null = null;
    for (;;) {
      const page: Answer = await call(
        server,
        'GET',
        `/api/v1/directory/changes?limit=3${since ? `&since=${since}` : ''}`,
      );
      expect(page.status).toBe(200);
      changes.push(...page.body.changes);
      if (!page.body.more) break;
      since = page.body.next_since;
    }
    const made = changes.filter((change) => change.sync_id === syncId);
    if (made.length > 0 || tries >= 1200) return made;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(STORES)('stock (%s store)', (store) => {
  let server: ServerUnderTest;
  let host: Onboarded;
  const ids: Record<string, string> = {};

  /** The catalogue: five plans at prices 1..5, with the stock given per external id (absent: not tracked). */
  const catalogue = (stock: Record<string, number | null | undefined>) =>
    ['a', 'b', 'c', 'd', 'e'].map((id, k) =>
      product(`stock-${id}`, {
        name: `Stockplan ${id.toUpperCase()}`,
        price: k + 1,
        currency: 'EUR',
        pricing_tiers: [{ period: 'Monthly', price: k + 1 }],
        ...(stock[id] === undefined ? {} : { stock: stock[id] }),
      }),
    );

  beforeAll(async () => {
    server = await startInProcessServer(store, { env: { SYNC_MAX_PER_WINDOW: '100' } });
    host = await onboard(server, `Stock Hosting ${store}`, { default_currency: 'EUR' });
    // a: plenty, b: sold out, c: 2 left, d: not tracked, e: sold out
    const answer = await sync(server, host.key, catalogue({ a: 50, b: 0, c: 2, e: 0 }));
    expect(answer.status).toBe(200);
    for (const entry of answer.body.products) ids[entry.external_id.slice(6)] = entry.id;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("takes stock as an integer of 0 or more, or null, and shows it in the provider's listing", async () => {
    const listing = await call(server, 'GET', '/api/v1/products?limit=100', { token: host.key });
    expect(listing.status).toBe(200);
    const stockOf = Object.fromEntries(
      listing.body.products.map((p: { external_id: string; stock: unknown }) => [p.external_id.slice(6), p.stock]),
    );
    expect(stockOf).toEqual({ a: 50, b: 0, c: 2, d: null, e: 0 });

    // The largest stock and an explicit null are valid too: a dry run says what would change, and writes nothing.
    const dry = await sync(
      server,
      host.key,
      catalogue({ a: 1_000_000_000, b: 0, c: 2, d: null, e: 0 }),
      '?dry_run=true',
    );
    expect(dry.status).toBe(200);
    expect(dry.body.products.map((p: { action: string }) => p.action)).toEqual([
      'updated',
      'unchanged',
      'unchanged',
      'unchanged',
      'unchanged',
    ]);
    const after = await call(server, 'GET', '/api/v1/products?limit=100', { token: host.key });
    expect(after.body.products.find((p: { external_id: string }) => p.external_id === 'stock-a').stock).toBe(50);
  });

  it('refuses a stock that is not a whole number of 0 to 1 000 000 000 with a 422 naming it, and changes nothing', async () => {
    const bad = [-1, 2.5, '3', true, 1_000_000_001, []];
    const products = bad.map((stock, k) => product(`bad-${k}`, { stock }));
    const answer = await sync(server, host.key, products);
    expect(answer.status).toBe(422);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body.code).toBe('VALIDATION_FAILED');
    expect(answer.body.errors).toEqual([
      { pointer: '/products/0/stock', code: 'minimum', detail: 'must be >= 0' },
      { pointer: '/products/1/stock', code: 'type', detail: expect.stringMatching(/^must be an integer/) },
      { pointer: '/products/2/stock', code: 'type', detail: expect.stringMatching(/^must be an integer/) },
      { pointer: '/products/3/stock', code: 'type', detail: expect.stringMatching(/^must be an integer/) },
      { pointer: '/products/4/stock', code: 'maximum', detail: 'must be <= 1000000000' },
      { pointer: '/products/5/stock', code: 'type', detail: expect.stringMatching(/^must be an integer/) },
    ]);
    const listing = await call(server, 'GET', '/api/v1/products?status=all&limit=100', { token: host.key });
    expect(listing.body.products).toHaveLength(5);
  });

  it('takes the original document\'s minimal body unchanged, its product with stock null ("not tracked")', async () => {
    const other = await onboard(server, `Minimal Stock ${store}`);
    const minimal = { external_id: 'min-1', name: 'Minimal', category: 'vps_cloud' };
    const answer = await sync(server, other.key, [minimal]);
    expect(answer.status).toBe(200);
    const listing = await call(server, 'GET', '/api/v1/products', { token: other.key });
    expect(listing.body.products[0]).toMatchObject({ external_id: 'min-1', stock: null, price: null });
    // Re-sent as it was, it is unchanged.
    expect((await sync(server, other.key, [minimal])).body.summary.unchanged).toBe(1);
  });

  it('answers stock and available in the JSON, sold-out plans after the others in both orders, across pages', async () => {
    const byPrice = await call(server, 'GET', '/api/v1/directory/products?q=stockplan&sort=price&limit=100');
    expect(byPrice.status).toBe(200);
    expect(byPrice.body.products.map((p: { name: string }) => p.name.slice(10))).toEqual(['A', 'C', 'D', 'B', 'E']);
    expect(byPrice.body.products.map((p: { stock: unknown; available: unknown }) => [p.stock, p.available])).toEqual([
      [50, true],
      [2, true],
      [null, null],
      [0, false],
      [0, false],
    ]);
    const desc = await call(server, 'GET', '/api/v1/directory/products?q=stockplan&sort=price&order=desc');
    expect(desc.body.products.map((p: { name: string }) => p.name.slice(10))).toEqual(['D', 'C', 'A', 'E', 'B']);
    const byName = await call(server, 'GET', '/api/v1/directory/products?q=stockplan&sort=name');
    expect(byName.body.products.map((p: { name: string }) => p.name.slice(10))).toEqual(['A', 'C', 'D', 'B', 'E']);

    // Two at a time, without words (the sort indexes walked), in a host's listing and in the category.
    for (const base of [
      `/api/v1/directory/hosts/${host.slug}?sort=price`,
      '/api/v1/directory/products?host=' + host.slug,
    ]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Answer = await call(server, 'GET', `${base}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        seen.push(...page.body.products.map((p: { name: string }) => p.name.slice(10)));
        cursor = page.body.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual(['A', 'C', 'D', 'B', 'E']);
    }
  });

  it('leaves sold-out plans out with in_stock=1, and refuses a value it does not know, naming those it does', async () => {
    const inStock = await call(server, 'GET', '/api/v1/directory/products?q=stockplan&in_stock=1');
    expect(inStock.body.products.map((p: { name: string }) => p.name.slice(10))).toEqual(['A', 'C', 'D']);
    const all = await call(server, 'GET', '/api/v1/directory/products?q=stockplan&in_stock=0');
    expect(all.body.products).toHaveLength(5);
    const wrong = await call(server, 'GET', '/api/v1/directory/products?in_stock=maybe');
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([
      expect.objectContaining({
        parameter: 'in_stock',
        code: 'enum',
        detail: expect.stringContaining('1, 0, true, false'),
      }),
    ]);
  });

  it('marks "Sold out" and "Only N left" on cards, table rows, a plan\'s page and a comparison', async () => {
    const cards = await text(server, '/search?q=stockplan');
    expect(cards.status).toBe(200);
    expect(cards.body.match(/<span class="sold-out">Sold out<\/span>/g)).toHaveLength(2);
    expect(cards.body.match(/<span class="few-left">Only 2 left<\/span>/g)).toHaveLength(1);
    // Plenty left, or not tracked: no mark.
    expect(cards.body).not.toContain('Only 50 left');
    expect(cards.body).toContain('name="in_stock" value="1"');

    const table = await text(server, '/search?q=stockplan&view=table');
    expect(table.body.match(/<br><span class="sold-out">Sold out<\/span><\/td>/g)).toHaveLength(2);

    expect((await text(server, `/products/${ids.b}`)).body).toContain('<p><span class="sold-out">Sold out</span></p>');
    expect((await text(server, `/products/${ids.c}`)).body).toContain('<span class="few-left">Only 2 left</span>');
    expect((await text(server, `/products/${ids.a}`)).body).not.toMatch(/<span class="(sold-out|few-left)">/);

    const compare = await call(server, 'GET', `/api/v1/directory/compare?ids=${ids.a},${ids.b},${ids.c},${ids.d}`);
    expect(compare.status).toBe(200);
    const availability = compare.body.rows.find((row: { key: string }) => row.key === 'availability');
    expect(availability.values).toEqual(['In stock', 'Sold out', 'Only 2 left', null]);
    const comparePage = await text(server, `/compare?ids=${ids.a},${ids.b}`);
    expect(comparePage.body).toMatch(/<th scope="row">Availability<\/th>/);
  });

  it('lists only plans in stock on the pages with in_stock=1, and says so', async () => {
    const page = await text(server, '/search?q=stockplan&in_stock=1');
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('Stockplan B');
    expect(page.body).toContain('Stockplan C');
    expect(page.body).toContain('in stock only');
  });

  it("tells sell-outs, restocks and new plans in the change feed and the Atom feed, after the run's other changes", async () => {
    // a sells out, b comes back with 7, e is no longer tracked (it can be bought: back), a new plan f sold out.
    const next = [
      ...catalogue({ a: 0, b: 7, c: 2 }),
      product('stock-f', { name: 'Stockplan F', price: 9, currency: 'EUR', stock: 0 }),
    ];
    const answer = await sync(server, host.key, next);
    expect(answer.status).toBe(200);
    ids.f = answer.body.products.at(-1).id;
    const changes = await changesOf(server, answer.body.sync_id);
    const named = changes.map((change) => [
      Object.entries(ids).find(([, id]) => id === change.product_id)?.[0],
      change.action,
    ]);
    const restocked = [ids.b!, ids.e!]
      .sort()
      .map((id) => [Object.entries(ids).find(([, i]) => i === id)![0], 'restocked']);
    expect(named).toEqual([
      ['a', 'updated'],
      ['b', 'updated'],
      ['e', 'updated'],
      ['f', 'created'],
      // Stock events follow in product id order.
      ...[['a', 'sold_out'], ...restocked].sort((x, y) => (ids[x[0]!]! < ids[y[0]!]! ? -1 : 1)),
    ]);

    const atom = await text(server, '/api/v1/directory/feed.atom?q=stockplan');
    expect(atom.status).toBe(200);
    expect(atom.body).toContain('<title type="text">Sold out: Stockplan A by ');
    expect(atom.body).toContain('<title type="text">Back in stock: Stockplan B by ');
    expect(atom.body).toContain(`<id>tag:hostdir,2026:${ids.b}/restocked/${answer.body.sync_id}</id>`);
    expect(atom.body).toContain('<title type="text">New: Stockplan F by ');
    // A search that does not match the plan does not tell its stock.
    expect((await text(server, '/api/v1/directory/feed.atom?q=nothingmatcheshere')).body).not.toContain('Sold out');

    // A sync that changes nothing about stock tells no stock event.
    const quiet = await sync(
      server,
      host.key,
      next.map((p) => (p.external_id === 'stock-c' ? { ...p, price: 3.5 } : p)),
    );
    const latest = await changesOf(server, quiet.body.sync_id);
    expect(latest.map((change) => change.action)).toEqual(['updated']);
    // The feed may wait for other transactions on a shared PostgreSQL server (changesOf): room for that wait.
  }, 180_000);
});
