// Verified freshness, price history, feeds and exports, end to end on both stores: what a visitor and a program see
// over HTTP, and what the database holds.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedDatabase } from '../../src/store/embedded.js';
import { admin, call, onboard, product, sync, type Answer, type Onboarded } from '../support/api.js';
import { atomProblems } from '../support/atom-validator.js';
import { parseCsv } from '../support/csv.js';
import { CLI, copyEmbeddedTemplate, startServer, STORES, type StoreKind, type TestServer } from '../support/server.js';

/** A sync sent with this request id fails after every product is written: the run's own INSERT raises. */
const FAILING_REQUEST = 'fail-after-writes';
const FAULT = [
  `CREATE FUNCTION test_fail_run() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$`,
  `CREATE TRIGGER test_fail_run BEFORE INSERT ON sync_runs FOR EACH ROW WHEN (NEW.request_id = '${FAILING_REQUEST}') EXECUTE FUNCTION test_fail_run()`,
];

/**
 * Runs SQL on the server's database: on PostgreSQL while it runs; the embedded store is opened by the server's process
 * alone, so the server is stopped for it and started again on the same store.
 */
async function onDatabase<R = Record<string, unknown>>(server: TestServer, statements: string[]): Promise<R[][]> {
  if (server.store === 'postgres') {
    const results: R[][] = [];
    for (const statement of statements) results.push(await server.sql<R>(statement));
    return results;
  }
  await server.kill();
  const db = await EmbeddedDatabase.open(path.join(server.dataDir, 'pglite'));
  try {
    const results: R[][] = [];
    for (const statement of statements) results.push((await db.query(statement)).rows as R[]);
    return results;
  } finally {
    await db.close();
    await server.restart();
  }
}

async function start(store: StoreKind): Promise<{ server: TestServer; cleanup(): Promise<void> }> {
  const env = { SYNC_MAX_PER_WINDOW: '100', STALE_AFTER_DAYS: '30' };
  if (store === 'postgres') {
    const server = await startServer(store, { env });
    for (const statement of FAULT) await server.sql(statement);
    return { server, cleanup: () => server.stop() };
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'hostdir-history-'));
  const db = await EmbeddedDatabase.open(await copyEmbeddedTemplate(dataDir));
  for (const statement of FAULT) await db.query(statement);
  await db.close();
  const server = await startServer(store, { env, dataDir });
  return { server, cleanup: async () => (await server.stop(), await rm(dataDir, { recursive: true, force: true })) };
}

const text = async (server: TestServer, url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.url}${url}`, { headers });
  return { status: response.status, headers: response.headers, body: await response.text() };
};

describe.each(STORES)('freshness, price history, feeds and exports (%s store)', (store) => {
  let server: TestServer;
  let cleanup: () => Promise<void>;
  let fresh: Onboarded;
  let old: Onboarded;
  let never: Onboarded;
  const ids: Record<string, string> = {};

  /** what the catalogue holds now, beyond its first version: each later sync sends it all again */
  const held: Record<string, Record<string, unknown>> = {};
  const catalogue = (changes: Record<string, Record<string, unknown>> = {}) => {
    const overrides = Object.fromEntries(['vps-s', 'vps-m', 'tricky'].map((k) => [k, { ...held[k], ...changes[k] }]));
    return [
      product('vps-s', {
        name: 'Turbo VPS S',
        price: 10,
        pricing_tiers: [{ period: 'Monthly', price: 10 }],
        setup_fee: 5,
        ...overrides['vps-s'],
      }),
      product('vps-m', { name: 'Turbo VPS M', price: 20, pricing_tiers: null, ...overrides['vps-m'] }),
      product('tricky', {
        name: '=HYPERLINK("http://evil.example"), "quoted"',
        description: 'line one\nline two',
        price: 7,
        pricing_tiers: null,
        features: ['+cmd', 'a,b'],
        ...overrides.tricky,
      }),
    ];
  };

  async function historyRows(): Promise<number> {
    if (server.store !== 'postgres') return -1;
    const [rows] = await onDatabase<{ n: number }>(server, ['SELECT count(*)::int AS n FROM price_history']);
    return Number(rows![0]!.n);
  }

  beforeAll(async () => {
    ({ server, cleanup } = await start(store));
    fresh = await onboard(server, 'Fresh Hosting');
    old = await onboard(server, 'Old Hosting');
    never = await onboard(server, 'Never Hosting');
    const created = await sync(server, fresh.key, catalogue());
    expect(created.status).toBe(200);
    for (const p of created.body.products) ids[p.external_id] = p.id;
    const oldSync = await sync(server, old.key, [
      product('old-vps', { name: 'Turbo VPS Old', price: 3, pricing_tiers: null }),
    ]);
    expect(oldSync.status).toBe(200);
    ids['old-vps'] = oldSync.body.products[0].id;
  }, 240_000);

  afterAll(async () => cleanup?.());

  it('a created product has one point of price history, and no row was written for it', async () => {
    const answer = await call(server, 'GET', `/api/v1/directory/products/${ids['vps-s']}/price-history`);
    expect(answer.status).toBe(200);
    expect(answer.body.points).toHaveLength(1);
    expect(answer.body.points[0]).toMatchObject({
      to: null,
      price: 10,
      monthly_price: 10,
      currency: 'USD',
      setup_fee: 5,
    });
    expect(answer.body.truncated).toBe(false);
    if (store === 'postgres') expect(await historyRows()).toBe(0);
    expect(
      (await call(server, 'GET', '/api/v1/directory/products/prd_01ZZZZZZZZZZZZZZZZZZZZZZZZ/price-history')).status,
    ).toBe(404);
  });

  it('an unchanged sync and a change of anything but prices write no history', async () => {
    expect((await sync(server, fresh.key, catalogue())).body.summary.unchanged).toBe(3);
    const described = await sync(server, fresh.key, catalogue({ 'vps-m': { description: 'now with more words' } }));
    expect(described.body.summary).toMatchObject({ updated: 1, unchanged: 2 });
    held['vps-m'] = { description: 'now with more words' };
    for (const id of [ids['vps-s'], ids['vps-m']]) {
      expect((await call(server, 'GET', `/api/v1/directory/products/${id}/price-history`)).body.points).toHaveLength(1);
    }
    if (store === 'postgres') expect(await historyRows()).toBe(0);
  });

  it('a price change keeps the prices it replaces, and a failed sync keeps nothing', async () => {
    const failed = await call(server, 'POST', '/api/v1/sync/products', {
      token: fresh.key,
      json: { products: catalogue({ 'vps-s': { price: 1, pricing_tiers: [{ period: 'Monthly', price: 1 }] } }) },
      headers: { 'x-request-id': FAILING_REQUEST },
    });
    expect(failed.status).toBe(500);
    const unchangedHistory = await call(server, 'GET', `/api/v1/directory/products/${ids['vps-s']}/price-history`);
    expect(unchangedHistory.body.points).toHaveLength(1);
    expect(unchangedHistory.body.points[0].monthly_price).toBe(10);
    if (store === 'postgres') expect(await historyRows()).toBe(0);

    held['vps-s'] = { price: 8, pricing_tiers: [{ period: 'Monthly', price: 8 }], setup_fee: 0 };
    const cheaper = await sync(server, fresh.key, catalogue());
    expect(cheaper.body.summary).toMatchObject({ updated: 1, unchanged: 2 });
    const history = await call(server, 'GET', `/api/v1/directory/products/${ids['vps-s']}/price-history`);
    expect(history.body.points).toHaveLength(2);
    const [before, now] = history.body.points;
    expect(before).toMatchObject({ monthly_price: 10, setup_fee: 5, currency: 'USD' });
    expect(now).toMatchObject({ monthly_price: 8, setup_fee: 0, to: null });
    expect(before.to).toBe(now.from);
    if (store === 'postgres') expect(await historyRows()).toBe(1);

    // The directory's answer marks the drop of the last 30 days.
    const listed = await call(server, 'GET', `/api/v1/directory/products/${ids['vps-s']}`);
    expect(listed.body.product.price_drop).toMatchObject({ previous_monthly_price: 10 });
    expect(
      (await call(server, 'GET', `/api/v1/directory/products/${ids['vps-m']}`)).body.product.price_drop,
    ).toBeNull();
  });

  it('the product page draws the history as a chart with a table beside it', async () => {
    const page = await text(server, `/products/${ids['vps-s']}`, { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h2 id="price-history">Price history</h2>');
    expect(page.body).toMatch(/<svg class="chart" role="img" aria-labelledby="price-chart-title price-chart-desc"/);
    expect(page.body).toContain('<desc id="price-chart-desc">From $10.00 on');
    expect(page.body).toContain('<caption class="visually-hidden">Monthly price over time</caption>');
    expect(page.body).toMatch(/<td>\$10\.00<\/td><td>\$5\.00<\/td>/);
    expect(page.body).toContain('<span class="drop">Price dropped</span>');
    expect(page.body).toMatch(/Confirmed <time datetime="\d{4}-\d{2}-\d{2}T[^"]+"[^>]*>(just now|\d+ min ago)<\/time>/);
  });

  it('price_dropped_since lists only products cheaper now than on that day', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const dropped = await call(server, 'GET', `/api/v1/directory/products?price_dropped_since=${today}`);
    expect(dropped.status).toBe(200);
    expect(dropped.body.products.map((p: { id: string }) => p.id)).toEqual([ids['vps-s']]);
    expect(dropped.body.products[0].price_drop).toEqual({ since: today, previous_monthly_price: 10 });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(
      (await call(server, 'GET', `/api/v1/directory/products?price_dropped_since=${tomorrow}`)).body.products,
    ).toEqual([]);
    const bad = await call(server, 'GET', '/api/v1/directory/products?price_dropped_since=2026-02-30');
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].parameter).toBe('price_dropped_since');
    const page = await text(server, `/search?price_dropped_since=${today}`);
    expect(page.body.match(/<li class="card">/g)).toHaveLength(1);
    expect(page.body).toContain('Turbo VPS S');
  });

  it('every listing says when it was confirmed; a stale host is marked and left out of searches unless asked for', async () => {
    const before = await call(server, 'GET', '/api/v1/directory/products?q=turbo');
    expect(before.body.products.map((p: { host: { slug: string } }) => p.host.slug).sort()).toEqual([
      fresh.slug,
      fresh.slug,
      old.slug,
    ]);
    for (const p of before.body.products) {
      expect(p.stale).toBe(false);
      expect(Date.now() - Date.parse(p.confirmed_at)).toBeLessThan(3_600_000);
    }
    // The test clock: the old host's last applied sync is moved 40 days back (STALE_AFTER_DAYS is 30).
    await onDatabase(server, [
      `UPDATE sync_runs SET applied_at = applied_at - interval '40 days' WHERE host_id = (SELECT id FROM hosts WHERE slug = '${old.slug}')`,
      `UPDATE hosts SET confirmed_at = confirmed_at - interval '40 days' WHERE slug = '${old.slug}'`,
    ]);

    const after = await call(server, 'GET', '/api/v1/directory/products?q=turbo');
    expect(after.body.products.map((p: { host: { slug: string } }) => p.host.slug)).toEqual([fresh.slug, fresh.slug]);
    const all = await call(server, 'GET', '/api/v1/directory/products?q=turbo&include_stale=1');
    const stale = all.body.products.find((p: { host: { slug: string } }) => p.host.slug === old.slug);
    expect(stale).toMatchObject({ stale: true, id: ids['old-vps'] });
    expect(Date.now() - Date.parse(stale.confirmed_at)).toBeGreaterThan(39 * 86_400_000);

    // The host's own answers and pages still show it, marked.
    const hostAnswer = await call(server, 'GET', `/api/v1/directory/hosts/${old.slug}`);
    expect(hostAnswer.body.host).toMatchObject({ stale: true });
    expect(hostAnswer.body.products).toHaveLength(1);
    const hostPage = await text(server, `/hosts/${old.slug}`);
    expect(hostPage.body).toContain('<strong>Stale listing.</strong>');
    expect(hostPage.body).toMatch(
      /<span class="stale">Stale: last confirmed <time datetime="[^"]+"[^>]*>40 days ago<\/time><\/span>/,
    );
    const productPage = await text(server, `/products/${ids['old-vps']}`);
    expect(productPage.body).toContain('<strong>Stale listing.</strong>');
    const searchPage = await text(server, '/search?q=turbo');
    expect(searchPage.body).not.toContain('Turbo VPS Old');
    expect(searchPage.body).toContain('name="include_stale" value="1"');
    expect((await text(server, '/search?q=turbo&include_stale=1')).body).toContain('Turbo VPS Old');
    const freshPage = await text(server, `/hosts/${fresh.slug}`);
    expect(freshPage.body).not.toContain('Stale listing');

    // The operator sees it too, and the host that never synced counts as unconfirmed.
    const hosts = await admin(server, 'GET', '/hosts');
    const bySlug = new Map(hosts.body.hosts.map((h: { slug: string }) => [h.slug, h]));
    expect(bySlug.get(old.slug)).toMatchObject({ stale: true });
    expect(bySlug.get(fresh.slug)).toMatchObject({ stale: false });
    expect(bySlug.get(never.slug)).toMatchObject({ stale: true, confirmed_at: null });
    expect((await admin(server, 'GET', `/hosts/${old.slug}`)).body.host.stale).toBe(true);
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'hosts', 'list'], {
      env: { PATH: process.env.PATH ?? '', HOSTDIR_URL: server.url, ADMIN_TOKEN: server.adminToken },
    });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SLUG\s+NAME\s+STATUS\s+CURRENCY\s+CREATED\s+CONFIRMED\s+STALE$/);
    expect(lines.find((line) => line.startsWith(old.slug))).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z\s+stale$/);
    expect(lines.find((line) => line.startsWith(fresh.slug))).toMatch(/\s+no$/);
    expect(lines.find((line) => line.startsWith(never.slug))).toMatch(/\s+never\s+stale$/);

    // A sync confirms it again.
    expect(
      (await sync(server, old.key, [product('old-vps', { name: 'Turbo VPS Old', price: 3, pricing_tiers: null })]))
        .status,
    ).toBe(200);
    const again = await call(server, 'GET', '/api/v1/directory/products?q=turbo');
    expect(again.body.products).toHaveLength(3);
  }, 240_000);

  it('the Atom feed of a search holds its new plans and price drops, valid Atom, linked from the page', async () => {
    const feed = await text(server, '/api/v1/directory/feed.atom?q=turbo&category=vps_cloud');
    expect(feed.status).toBe(200);
    expect(feed.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    expect(feed.headers.get('cache-control')).toMatch(/^public/);
    expect(feed.headers.get('access-control-allow-origin')).toBe('*');
    expect(await atomProblems(feed.body)).toEqual([]);
    expect(feed.body).toContain(`<id>tag:hostdir,2026:${ids['vps-s']}/created</id>`);
    expect(feed.body).toContain(
      '<title type="text">Price drop: Turbo VPS S by Fresh Hosting, $10.00 per month → $8.00 per month</title>',
    );
    expect(feed.body).toContain(`<id>tag:hostdir,2026:${ids['vps-m']}/created</id>`);
    // The tricky product is not a "turbo": filters hold.
    expect(feed.body).not.toContain('HYPERLINK');
    const etag = feed.headers.get('etag')!;
    expect(
      (await text(server, '/api/v1/directory/feed.atom?q=turbo&category=vps_cloud', { 'if-none-match': etag })).status,
    ).toBe(304);

    const everything = await text(server, '/api/v1/directory/feed.atom');
    expect(await atomProblems(everything.body)).toEqual([]);
    expect(everything.body).toContain('=HYPERLINK(&quot;http://evil.example&quot;), &quot;quoted&quot;');
    const none = await text(server, '/api/v1/directory/feed.atom?q=nosuchword');
    expect(await atomProblems(none.body)).toEqual([]);
    expect(none.body).not.toContain('<entry>');
    expect((await call(server, 'GET', '/api/v1/directory/feed.atom?max_price=5&display_currency=SEK')).status).toBe(
      422,
    );

    const page = await text(server, '/search?q=turbo&category=vps_cloud');
    expect(page.body).toContain(
      '<link rel="alternate" type="application/atom+xml" title="New plans and price drops" href="/api/v1/directory/feed.atom?q=turbo&amp;category=vps_cloud">',
    );
    expect(page.body).toContain('href="/api/v1/directory/export.csv?q=turbo&amp;category=vps_cloud"');
  });

  it('the CSV export streams every result of the search, escaped and defused', async () => {
    const csv = await text(server, '/api/v1/directory/export.csv?sort=name');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="hostdir-products.csv"');
    expect(csv.headers.get('cache-control')).toMatch(/^public/);
    const records = parseCsv(csv.body);
    expect(records[0]!.slice(0, 3)).toEqual(['id', 'name', 'host']);
    const rows = records.slice(1).map((cells) => Object.fromEntries(records[0]!.map((name, k) => [name, cells[k]])));
    expect(rows.map((row) => row.name)).toEqual([
      `'=HYPERLINK("http://evil.example"), "quoted"`,
      'Turbo VPS M',
      'Turbo VPS Old',
      'Turbo VPS S',
    ]);
    expect(rows[0]!.features).toBe("'+cmd; a,b");
    expect(rows[3]).toMatchObject({ monthly_price: '8', currency: 'USD', host: fresh.slug, stale: 'false' });
    expect(csv.body.split('\r\n').length).toBe(records.length + 1);

    const filtered = parseCsv(
      (await text(server, '/api/v1/directory/export.csv?q=turbo&max_price=9&currency=usd')).body,
    );
    expect(filtered.slice(1).map((cells) => cells[1])).toEqual(['Turbo VPS Old', 'Turbo VPS S']);

    const etag = csv.headers.get('etag')!;
    expect((await text(server, '/api/v1/directory/export.csv?sort=name', { 'if-none-match': etag })).status).toBe(304);
    expect((await call(server, 'GET', '/api/v1/directory/export.csv?sort=sideways')).status).toBe(422);
  });

  it('a large export streams page after page, every product once', async () => {
    const big = await onboard(server, 'Big Hosting');
    const many = Array.from({ length: 1203 }, (_, k) =>
      product(`big-${k}`, { name: `Bulk ${k}`, category: 'storage', price: k % 50 }),
    );
    expect((await sync(server, big.key, many)).status).toBe(200);
    const csv = await text(server, `/api/v1/directory/export.csv?host=${big.slug}`, { 'accept-encoding': 'gzip' });
    const rows = parseCsv(csv.body).slice(1);
    expect(rows).toHaveLength(1203);
    expect(new Set(rows.map((cells) => cells[0])).size).toBe(1203);

    // 300 repriced: more than one statement takes, so the changes go by COPY and one UPDATE, which keeps history too.
    const repriced = many.map((p, k) => (k < 300 ? { ...p, price: Number(p.price) + 100 } : p));
    const answer = await sync(server, big.key, repriced);
    expect(answer.body.summary).toMatchObject({ updated: 300, unchanged: 903 });
    const idOf = (k: number) => answer.body.products[k].id;
    for (const [k, points] of [
      [0, 2],
      [299, 2],
      [300, 1],
    ] as const) {
      const history = await call(server, 'GET', `/api/v1/directory/products/${idOf(k)}/price-history`);
      expect(history.body.points.map((p: { price: number }) => p.price)).toEqual(
        points === 2 ? [k % 50, (k % 50) + 100] : [k % 50],
      );
    }
    if (store === 'postgres') expect(await historyRows()).toBe(301);
  }, 240_000);

  it('the change feed hands out every change in order, page by page, from a position that never skips one', async () => {
    // A change shows once every writing transaction that began before it has ended, on the whole PostgreSQL server:
    // other databases' writers (other test suites) can hold the syncs back for a while, so they are waited for.
    // fresh: 3 created, 2 updated; old: 1 created (its later syncs changed nothing); big: 1 203 created, 300 updated
    const expected = 3 + 2 + 1 + 1203 + 300;
    const readAll = async (limit: number) => {
      const read: any[] = [];
      let position: string | null = null;
      for (;;) {
        const page: Answer = await call(
          server,
          'GET',
          `/api/v1/directory/changes?limit=${limit}${position ? `&since=${position}` : ''}`,
        );
        expect(page.status).toBe(200);
        read.push(...page.body.changes);
        position = page.body.next_since;
        if (!page.body.more) return { read, position: position! };
      }
    };
    for (let tries = 0; tries < 1200 && (await readAll(1000)).read.length < expected; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const first = await call(server, 'GET', '/api/v1/directory/changes?limit=2');
    expect(first.body.changes).toHaveLength(2);
    expect(first.body.more).toBe(true);
    const seen = [...first.body.changes];
    let since: string = first.body.next_since;
    for (;;) {
      const page = await call(server, 'GET', `/api/v1/directory/changes?since=${since}&limit=500`);
      seen.push(...page.body.changes);
      since = page.body.next_since;
      if (!page.body.more) break;
    }
    expect(seen).toHaveLength(expected);
    const key = (c: { sync_id: string; product_id: string; action: string }) =>
      `${c.sync_id}/${c.product_id}/${c.action}`;
    expect(new Set(seen.map(key)).size).toBe(seen.length);
    // Creations of the first syncs, the description's update, the price's update, the large host's 1 203 products.
    expect(
      seen
        .filter((c) => c.action === 'created' && c.host === fresh.slug)
        .map((c) => c.product_id)
        .sort(),
    ).toEqual([ids['vps-s'], ids['vps-m'], ids['tricky']].sort());
    expect(seen.filter((c) => c.action === 'updated' && c.host === fresh.slug).map((c) => c.product_id)).toEqual([
      ids['vps-m'],
      ids['vps-s'],
    ]);
    const big = seen.filter((c) => c.host === 'big-hosting');
    expect(big.filter((c) => c.action === 'created')).toHaveLength(1203);
    expect(big.filter((c) => c.action === 'updated')).toHaveLength(300);
    // In order: the 1 203 creations before the 300 updates.
    expect(big.findIndex((c) => c.action === 'updated')).toBe(1203);
    expect(seen.every((c) => c.listed === true)).toBe(true);

    // Nothing new: the same position comes back. Then a deactivation shows up after it.
    const idle = await call(server, 'GET', `/api/v1/directory/changes?since=${since}`);
    expect(idle.body).toEqual({ changes: [], next_since: since, more: false });
    expect((await sync(server, fresh.key, catalogue().slice(0, 2))).body.summary.deactivated).toBe(1);
    // The same wait for the deactivation.
    let next = await call(server, 'GET', `/api/v1/directory/changes?since=${since}`);
    for (let tries = 0; next.body.changes.length === 0 && tries < 1200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      next = await call(server, 'GET', `/api/v1/directory/changes?since=${since}`);
    }
    expect(next.body.changes).toEqual([
      expect.objectContaining({ product_id: ids['tricky'], action: 'deactivated', host: fresh.slug, listed: false }),
    ]);
    expect(next.body.next_since).not.toBe(since);

    const bad = await call(server, 'GET', '/api/v1/directory/changes?since=garbage');
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ parameter: 'since', code: 'invalid_cursor' });
  }, 400_000);
});
