// A listing without filters whose values decide the plan (a category's or a host's, in any sort), and a product's
// page, are kept prepared on a connection straight to PostgreSQL, and PostgreSQL keeps one plan for them after their
// first runs; a search with words, facets, ranges or a price limit is planned for its values each time. What the
// server holds is asked of the server itself, on the one connection the adapter has.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/store/db.js';
import { findListedProduct } from '../../src/store/directory/listed-product.js';
import { searchProducts } from '../../src/store/directory/product-listing.js';
import { freshnessOf } from '../../src/store/freshness.js';
import { insertHost } from '../../src/store/hosts.js';
import { migrate } from '../../src/store/migrate.js';
import { listedPriceHistory } from '../../src/store/price-history.js';
import { PostgresDatabase } from '../../src/store/postgres.js';
import { searchOf } from '../support/searches.js';
import { createTestDatabase } from '../support/server.js';

interface Held {
  statement: string;
  generic_plans: number;
  custom_plans: number;
}

describe('listing plans on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: PostgresDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new PostgresDatabase({ url: database.url, poolSize: 1, statementTimeoutMs: 10_000 });
    await migrate(db);
    const host = await insertHost(db, { slug: 'plans', name: 'Plans', default_currency: 'EUR' });
    await db.query('UPDATE hosts SET confirmed_at = now() WHERE id = $1', [host.id]);
    for (let n = 1; n <= 30; n++) {
      await db.query(
        `INSERT INTO products (host_id, external_id, id, status, name, category, currency, price, fingerprint, created_at, updated_at)
         VALUES ($1, $2, $3, 'active', $4, $5, 'EUR', $6, $2, now(), now())`,
        [
          host.id,
          `p-${n}`,
          `prd_plans${String(n).padStart(4, '0')}`,
          `Plan ${n}`,
          n % 2 === 0 ? 'storage' : 'backup',
          n,
        ],
      );
    }
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const held = async (): Promise<Held[]> =>
    (
      await db.query<Held>(
        `SELECT statement, generic_plans::int AS generic_plans, custom_plans::int AS custom_plans
         FROM pg_prepared_statements WHERE statement LIKE '%FROM products p JOIN hosts h%'`,
      )
    ).rows;

  it('keeps a category listing prepared and plans it once for every category, and a search with words each time', async () => {
    const pages: string[][] = [];
    for (let k = 0; k < 10; k++) {
      const page = await searchProducts(db, searchOf({ category: k % 2 === 0 ? 'storage' : 'backup' }));
      pages.push(page.products.map((product) => product.name));
    }
    expect(pages[0]).toHaveLength(15);
    expect(pages[0]![0]).toBe('Plan 2');
    expect(pages[1]![0]).toBe('Plan 1');
    // Sorted by price: the priced products' statement, then the unpriced ones' (the page is not full), and the same two
    // for the sold-out plans, which follow.
    const listings = await held();
    expect(listings).toHaveLength(4);
    for (const listing of listings) expect(listing.generic_plans + listing.custom_plans).toBe(10);
    for (const listing of listings) expect(listing.generic_plans).toBeGreaterThan(0);

    // The same listing of the next page is another statement, kept as well.
    const first = await searchProducts(db, searchOf({ category: 'storage', limit: 5 }));
    const second = await searchProducts(db, searchOf({ category: 'storage', limit: 5, after: first.next }));
    expect(second.products.map((product) => product.name)).toEqual([
      'Plan 12',
      'Plan 14',
      'Plan 16',
      'Plan 18',
      'Plan 20',
    ]);

    const before = (await held()).length;
    expect((await searchProducts(db, searchOf({ category: 'storage', text: 'plan' }))).products).toHaveLength(15);
    expect(
      (await searchProducts(db, searchOf({ category: 'storage', currency: 'EUR', sort: 'name' }))).products
        .map((p) => p.name)
        .slice(0, 2),
    ).toEqual(['Plan 10', 'Plan 12']);
    expect((await searchProducts(db, searchOf({ location: 'Frankfurt' }))).products).toEqual([]);
    expect((await held()).length).toBe(before);
  });

  it("keeps a product's page statements prepared, planned once for every product", async () => {
    for (let n = 1; n <= 7; n++) {
      const id = `prd_plans${String(n).padStart(4, '0')}`;
      expect((await findListedProduct(db, id, freshnessOf(30, true), '2026-11-01'))?.name).toBe(`Plan ${n}`);
      expect((await listedPriceHistory(db, id))?.points).toHaveLength(1);
    }
    const { rows } = await db.query<{ generic_plans: number }>(
      `SELECT generic_plans::int AS generic_plans FROM pg_prepared_statements
       WHERE statement LIKE '%WHERE p.id = $1 AND p.status%' ORDER BY statement`,
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.generic_plans).toBeGreaterThan(0);
  });

  it('samples three times more rows than the default for the facets, whose estimates a small sample got wrong', async () => {
    const { rows } = await db.query<{ target: number }>(
      `SELECT attstattarget::int AS target FROM pg_attribute WHERE attrelid = 'products'::regclass AND attname = 'facets'`,
    );
    expect(rows).toEqual([{ target: 300 }]);
  });

  it("walks a host's listing by price in the host's own index, reading a page of its products, not sorting them all", async () => {
    const host = await insertHost(db, { slug: 'plans-many', name: 'Plans Many', default_currency: 'EUR' });
    await db.query('UPDATE hosts SET confirmed_at = now() WHERE id = $1', [host.id]);
    await db.query(
      `INSERT INTO products (host_id, external_id, id, status, name, category, currency, price, base_monthly_price,
         fingerprint, created_at, updated_at)
       SELECT $1, 'm-' || n, 'prd_many' || lpad(n::text, 5, '0'), 'active', 'Many ' || n, 'storage', 'EUR', n, n, 'm-' || n, now(), now()
       FROM generate_series(1, 3000) AS n`,
      [host.id],
    );
    await db.query('ANALYZE products');
    const sent: { sql: string; params: readonly unknown[] }[] = [];
    const recording: Queryable = {
      query: (sql, params = [], options) => {
        sent.push({ sql, params });
        return db.query(sql, params, options);
      },
    };
    type PlanNode = { 'Node Type': string; 'Index Name'?: string; 'Actual Rows': number; Plans?: PlanNode[] };
    const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
    for (const order of ['asc', 'desc'] as const) {
      sent.length = 0;
      const first = await searchProducts(recording, searchOf({ hostSlug: 'plans-many', order }));
      const next = await searchProducts(recording, searchOf({ hostSlug: 'plans-many', order, after: first.next }));
      expect(
        [...first.products, ...next.products]
          .map((product) => product.name)
          .slice(0, 21)
          .at(-1),
      ).toBe(order === 'asc' ? 'Many 21' : 'Many 2980');
      expect(first.products[0]!.name).toBe(order === 'asc' ? 'Many 1' : 'Many 3000');
      const listings = sent.filter((statement) => statement.sql.includes('ORDER BY'));
      expect(listings).toHaveLength(2);
      for (const listing of listings) {
        const { rows } = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${listing.sql}`,
          listing.params,
        );
        const nodes = nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan);
        expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
        const walked = nodes.find((node) => node['Index Name'] === 'products_listed_host_base_price');
        // A page of 20 and the one row that tells whether there is more.
        expect(walked?.['Actual Rows']).toBe(21);
      }
    }
  });

  it("walks the sold-out plans' own indexes for the page where they begin, reading a page of them, not sorting", async () => {
    const host = await insertHost(db, { slug: 'plans-stock', name: 'Plans Stock', default_currency: 'EUR' });
    await db.query('UPDATE hosts SET confirmed_at = now() WHERE id = $1', [host.id]);
    // Every other one of 20 000 plans is sold out: 10 000 that can be bought, then 10 000 sold out.
    await db.query(
      `INSERT INTO products (host_id, external_id, id, status, name, category, currency, price, base_monthly_price,
         stock, fingerprint, created_at, updated_at)
       SELECT $1, 's-' || n, 'prd_stock' || lpad(n::text, 5, '0'), 'active', 'Stock ' || n, 'dedicated', 'EUR', n, n,
         CASE WHEN n % 2 = 0 THEN 0 ELSE n END, 's-' || n, now(), now()
       FROM generate_series(1, 20000) AS n`,
      [host.id],
    );
    // As autovacuum leaves them: the hosts' statistics too.
    await db.query('ANALYZE');
    const sent: { sql: string; params: readonly unknown[] }[] = [];
    const recording: Queryable = {
      query: (sql, params = [], options) => {
        sent.push({ sql, params });
        return db.query(sql, params, options);
      },
    };
    type PlanNode = { 'Node Type': string; 'Index Name'?: string; 'Actual Rows': number; Plans?: PlanNode[] };
    const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
    const listings = [
      { hostSlug: 'plans-stock' },
      { category: 'dedicated' },
      { category: 'dedicated', sort: 'name' as const },
      { sort: 'newest' as const, order: 'asc' as const },
    ];
    for (const filters of listings) {
      // The page that starts after the last plan that can be bought (by price 19999, by name "stock 9999", by id the
      // newest): the first of the sold-out ones.
      const after =
        filters.sort === 'name'
          ? { key: 'stock 9999', id: 'prd_stock09999' }
          : { key: filters.sort === 'newest' ? 'prd_stock19999' : '19999', id: 'prd_stock19999' };
      sent.length = 0;
      const page = await searchProducts(recording, searchOf({ ...filters, after }));
      expect(page.products.every((product) => product.stock === 0 && product.available === false)).toBe(true);
      expect(page.products).toHaveLength(20);
      const soldOut = sent.filter((statement) => statement.sql.includes('p.stock = 0'));
      expect(soldOut.length, JSON.stringify(filters)).toBeGreaterThan(0);
      const { rows } = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${soldOut[0]!.sql}`,
        soldOut[0]!.params,
      );
      const nodes = nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan);
      // Nothing is sorted (a product's price then, read from its price history, has none here).
      const sorted = nodes.filter((node) => node['Node Type'] === 'Sort' && node['Actual Rows'] > 0);
      expect(sorted, JSON.stringify(filters)).toEqual([]);
      // A page of 20 and the one row that tells whether there is more, walked in an index of the sold-out plans (which
      // one is PostgreSQL's choice: all plans here are in one category).
      const walked = nodes.filter((node) => node['Index Name']?.startsWith('products_sold_out_'));
      expect(
        walked.map((node) => node['Actual Rows']),
        JSON.stringify(filters),
      ).toEqual([21]);
    }
  });

  it('lists a host whose confirmation ages past the limit no more, in the same kept statement', async () => {
    const listed = async () => (await searchProducts(db, searchOf({ hostSlug: 'plans', limit: 100 }))).products.length;
    expect(await listed()).toBe(30);
    await db.query(`UPDATE hosts SET confirmed_at = now() - interval '31 days' WHERE slug = 'plans'`);
    expect(await listed()).toBe(0);
    await db.query(`UPDATE hosts SET confirmed_at = now() - interval '29 days' WHERE slug = 'plans'`);
    expect(await listed()).toBe(30);
  });
});
