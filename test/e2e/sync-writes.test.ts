// What a sync writes reads back exactly as sent (normalized), whatever the characters. A few products are written
// from their JSON by one statement; many are bulk-loaded with COPY, whose text format has its own escapes, so tabs,
// line breaks, backslashes and "\N" must survive both trips.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalPeriod } from '../../src/catalog/billing-periods.js';
import { call, onboard, product, sync } from '../support/api.js';
import { STORES, startServer, type TestServer } from '../support/server.js';

async function listing(server: TestServer, key: string): Promise<any[]> {
  const answer = await call(server, 'GET', '/api/v1/products?status=all&limit=1000', { token: key });
  expect(answer.status).toBe(200);
  return answer.body.products;
}

const tricky = (externalId: string, overrides: Record<string, unknown> = {}) =>
  product(externalId, {
    name: '  Tab\there, line\nbreak, CR\r, backslash \\ and \\N, quote " and \' — émoji 🚀  ',
    description: 'two\\tbackslash-t, a real\ttab, \\\\N, "json" {"a":1}\n\nend\\',
    specs: {
      'key\twith tab': 'value\\with\\backslashes',
      ['__proto__']: 'plain data',
      ünï: 4,
      nested_quote: 'say "hi"\n',
    },
    features: ['back\\slash', 'tab\tinside', '\\N', 'line\nbreak', 'quote " and 🚀', '\u0001 control'],
    datacenter_locations: ['Zürich', 'São Paulo', '東京'],
    pricing_tiers: [
      { period: 'Monthly', price: 0.1 },
      { period: 'Annually', price: 999999999.99 },
      // A period the directory does not know is kept exactly as sent, escapes and all.
      { period: 'per "back\\slash"\ttab \\N 🚀', price: 3 },
    ],
    price: 19.99,
    setup_fee: 0.3,
    ...overrides,
  });

function expectStored(stored: any, sent: Record<string, any>) {
  expect(stored.name).toBe(String(sent.name).trim());
  expect(stored.description).toBe(sent.description);
  expect(stored.features).toEqual(sent.features);
  expect(stored.datacenter_locations).toEqual(sent.datacenter_locations);
  expect(stored.pricing_tiers).toEqual(
    (sent.pricing_tiers as { period: string; price: number }[]).map((tier) => ({
      ...tier,
      canonical_period: canonicalPeriod(tier.period),
    })),
  );
  expect(stored.price).toBe(sent.price);
  expect(stored.setup_fee).toBe(sent.setup_fee);
  const specs = Object.fromEntries(
    Object.entries(sent.specs as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
  );
  expect(Object.entries(stored.specs)).toEqual(Object.entries(specs));
}

describe.each(STORES)('bulk writes of a sync (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(store, { env: { SYNC_MAX_PER_WINDOW: '1000' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  // More products than WRITE_BY_STATEMENT_MAX (256) created, then updated, at once go by COPY.
  it.each([
    ['a few products, written by statements', 0],
    ['hundreds of products, written by COPY', 300],
  ])('stores created, updated and reactivated products exactly, escapes and all: %s', async (_, padding) => {
    const host = await onboard(server, `Escapes ${store} ${padding}`);
    const pad = (price: number) => Array.from({ length: padding }, (_, k) => tricky(`pad-${k}`, { price }));
    const first = [tricky('a\\b'), tricky('plain-1'), product('plain-2'), product('to-drop'), ...pad(1)];
    const created = await sync(server, host.key, first);
    expect(created.status).toBe(200);
    expect(created.body.summary).toMatchObject({ received: 4 + padding, created: 4 + padding });

    let stored = new Map((await listing(server, host.key)).map((p) => [p.external_id, p]));
    expectStored(stored.get('a\\b'), first[0]!);
    expectStored(stored.get('plain-1'), first[1]!);
    expect(stored.get('plain-2').status).toBe('active');

    // Update one with new tricky content, keep one, drop one.
    const changedContent = tricky('plain-1', {
      name: 'changed\\\t\n',
      description: null,
      specs: { a: true },
      price: 0.07,
    });
    const second = [tricky('a\\b'), changedContent, product('plain-2'), ...pad(2)];
    const updated = await sync(server, host.key, second);
    expect(updated.body.products.map((p: any) => p.action)).toEqual([
      'unchanged',
      'updated',
      'unchanged',
      ...pad(2).map(() => 'updated'),
    ]);
    expect(updated.body.deactivated.map((d: any) => d.external_id)).toEqual(['to-drop']);
    stored = new Map((await listing(server, host.key)).map((p) => [p.external_id, p]));
    expectStored(stored.get('plain-1'), changedContent);
    expect(stored.get('to-drop').status).toBe('inactive');
    expect(stored.get('plain-1').id).toBe(created.body.products[1].id);

    // Back again with new content: reactivated with the payload's content.
    const back = tricky('to-drop', { name: 'back\tagain' });
    const third = await sync(server, host.key, [...second, back]);
    expect(third.body.products.at(-1)).toMatchObject({ external_id: 'to-drop', action: 'reactivated' });
    stored = new Map((await listing(server, host.key)).map((p) => [p.external_id, p]));
    expectStored(stored.get('to-drop'), back);
    expect(stored.get('to-drop').status).toBe('active');
    expect(stored.get('to-drop').deactivated_at).toBeNull();

    // The same catalogue once more: nothing differs, so nothing is written.
    const resent = await sync(server, host.key, [...second, back]);
    expect(resent.body.summary).toMatchObject({
      unchanged: 4 + padding,
      created: 0,
      updated: 0,
      reactivated: 0,
      deactivated: 0,
    });
    if (padding > 0) expectStored(stored.get('pad-0'), pad(2)[0]!);
    const after = await listing(server, host.key);
    expect(after.map((p) => p.updated_at)).toEqual([...stored.values()].map((p) => p.updated_at));
  });

  it('keeps prices as exact decimals and stamps a whole sync with one time', async () => {
    const host = await onboard(server, `Decimals ${store}`);
    const products = Array.from({ length: 1200 }, (_, k) =>
      product(`p-${k}`, { price: [0.1, 19.99, 1e-7, 999999999.99][k % 4] }),
    );
    const answer = await sync(server, host.key, products);
    expect(answer.status).toBe(200);
    const listed = await listing(server, host.key);
    expect(listed).toHaveLength(1000);
    expect(new Set(listed.map((p) => p.created_at)).size).toBe(1);
    expect(listed[0].created_at).toBe(listed[0].updated_at);
    if (store === 'postgres') {
      const rows = await server.sql<{ price: string; n: number }>(
        `SELECT price::text AS price, count(*)::int AS n FROM products
         WHERE host_id = (SELECT id FROM hosts WHERE slug = $1) GROUP BY 1 ORDER BY 1`,
        [host.slug],
      );
      expect(rows).toEqual([
        { price: '0.0000001', n: 300 },
        { price: '0.1', n: 300 },
        { price: '19.99', n: 300 },
        { price: '999999999.99', n: 300 },
      ]);
    }
  });

  it('keeps the hosts and categories that products refer to', async () => {
    const host = await onboard(server, `References ${store}`);
    expect((await sync(server, host.key, [product('kept', { category: 'game_rust' })])).status).toBe(200);
    if (store !== 'postgres') return;
    const hostId = `(SELECT id FROM hosts WHERE slug = '${host.slug}')`;
    // One simple-protocol script: its own keys and runs go first, so that only the products hold the host; the
    // failure rolls the whole script back.
    await expect(
      server.sql(`DELETE FROM api_keys WHERE host_id = ${hostId}; DELETE FROM sync_runs WHERE host_id = ${hostId};
        DELETE FROM hosts WHERE id = ${hostId}`),
    ).rejects.toMatchObject({ code: '23503', message: expect.stringContaining('still has products') });
    const stillUsed = { code: '23503', message: expect.stringContaining('still used by products') };
    await expect(server.sql("DELETE FROM categories WHERE slug = 'game_rust'")).rejects.toMatchObject(stillUsed);
    await expect(
      server.sql("UPDATE categories SET slug = 'game_rust2' WHERE slug = 'game_rust'"),
    ).rejects.toMatchObject(stillUsed);
    // A category nobody uses can still go.
    await server.sql("INSERT INTO categories (slug, label) VALUES ('unused_one', 'Unused')");
    await server.sql("DELETE FROM categories WHERE slug = 'unused_one'");
    expect(await server.sql('SELECT count(*)::int AS n FROM products WHERE host_id = ' + hostId)).toEqual([{ n: 1 }]);
  });
});
