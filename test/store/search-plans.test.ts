// What each of the directory's planner hints keeps PostgreSQL from doing, shown on 10 000 products by the plans of the
// statements really sent (EXPLAIN ANALYZE): the hint on, the plan it prevents is not there. The products are spread
// as a directory spreads them: prices and ids in no order of the table's, a hundred providers, one large category and
// a few small ones, and words enough that the statistics of ANALYZE hold more than a hundred common ones (with fewer,
// PostgreSQL guesses every prefix at 2 % and the words' own hints are moot).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/store/db.js';
import { ALTERNATIVES_WALK, cheaperAlternatives } from '../../src/store/directory/alternatives.js';
import { findListedProduct } from '../../src/store/directory/listed-product.js';
import { keptListedCategories } from '../../src/store/directory/listed-categories.js';
import { rareTogetherWalkBound } from '../../src/store/directory/plan-choice.js';
import { searchProducts } from '../../src/store/directory/product-listing.js';
import type { ProductSearch } from '../../src/store/directory/search.js';
import { freshnessOf } from '../../src/store/freshness.js';
import { migrate } from '../../src/store/migrate.js';
import { PostgresDatabase } from '../../src/store/postgres.js';
import { searchOf } from '../support/searches.js';
import { createTestDatabase } from '../support/server.js';

const PRODUCTS = 10_000;
const HOSTS = 100;
/** The one product named "Quokka": the dearest, so that a walk of the price index meets it last. */
const QUOKKA = PRODUCTS / 2;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Output?: string[];
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The rows a plan took from the products table, those its filters then left out included. */
const productRowsRead = (nodes: PlanNode[]) =>
  nodes
    .filter((node) => node['Relation Name'] === 'products')
    .reduce(
      (sum, node) =>
        sum +
        (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) *
          node['Actual Loops'],
      0,
    );

/** The indexes that give the listing its order: walking one of them is reading the listing in order. */
const SORT_INDEXES = /^products_listed_(base_price|name|newest|category_base_price|category_name|category_newest)$/;

describe('what the planner hints of the directory prevent (PostgreSQL, 10 000 products)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: PostgresDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new PostgresDatabase({ url: database.url, poolSize: 1, statementTimeoutMs: 30_000 });
    await migrate(db);
    await db.query(
      `INSERT INTO hosts (slug, name, default_currency, confirmed_at)
       SELECT 'plans-' || lpad(k::text, 2, '0'), 'Plans ' || k, 'EUR', now() FROM generate_series(0, $1::int - 1) AS k`,
      [HOSTS],
    );
    // Ids and prices are permutations of n (the multipliers are primes): no index is in the table's order.
    await db.query(
      `INSERT INTO products (host_id, external_id, id, status, name, description, category, currency, price,
         base_monthly_price, spec_values, fingerprint, created_at, updated_at)
       SELECT (SELECT id FROM hosts WHERE slug = 'plans-' || lpad((n % $2::int)::text, 2, '0')), 'p-' || n,
              'prd_plans' || lpad(((n * 104729) % $1::int)::text, 5, '0'), 'active',
              CASE WHEN n = $3::int THEN 'Quokka plan' WHEN n % 2 = 0 THEN 'Alpha plan ' || n ELSE 'Bravo plan ' || n END,
              (SELECT string_agg('w' || ((n * 31 + k * 17) % 150), ' ') FROM generate_series(1, 10) AS k),
              CASE WHEN n % 500 = 0 THEN 'backup' WHEN n % 3 = 0 THEN 'storage' ELSE 'vps_cloud' END, 'EUR', price, price,
              jsonb_build_object('ram_gb', (n % 64)::text, 'cpu_cores', (n % 16)::text, 'port_mbps', ((n % 10) * 100)::text),
              'p-' || n, now(), now()
       FROM generate_series(1, $1::int) AS n,
            LATERAL (SELECT CASE WHEN n = $3::int THEN $1::int + 1 ELSE 1 + (n * 7919) % $1::int END AS price) AS priced`,
      [PRODUCTS, HOSTS, QUOKKA],
    );
    // As autovacuum leaves a table: statistics, and the text index's pending entries merged into it.
    await db.query('VACUUM ANALYZE');
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  /** The statements `run` sends that read a listing, each with the nodes of its plan as it runs. */
  async function plansOf(run: (q: Queryable) => Promise<unknown>, verbose = false): Promise<PlanNode[][]> {
    const sent: { sql: string; params: readonly unknown[] }[] = [];
    await run({
      query: (sql, params = [], options) => {
        sent.push({ sql, params });
        return db.query(sql, params, options);
      },
    });
    const plans: PlanNode[][] = [];
    for (const statement of sent.filter((s) => /FROM products p/.test(s.sql))) {
      const { rows } = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        `EXPLAIN (ANALYZE${verbose ? ', VERBOSE' : ''}, FORMAT JSON) ${statement.sql}`,
        statement.params,
      );
      plans.push(nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan));
    }
    return plans;
  }

  const search = (filters: Partial<ProductSearch>) => (q: Queryable) => searchProducts(q, searchOf(filters));

  it('lets the text index lead for a rare word, where PostgreSQL would walk a sort index through the listing for it', async () => {
    for (const sort of ['price', 'name', 'newest'] as const) {
      const page = await searchProducts(db, searchOf({ text: 'quokka', sort, limit: 1 }));
      expect(page.products.map((product) => product.name)).toEqual(['Quokka plan']);
      const plans = await plansOf(search({ text: 'quokka', sort, limit: 1 }));
      const nodes = plans.flat();
      expect(
        nodes.filter((node) => SORT_INDEXES.test(node['Index Name'] ?? '')).map((node) => node['Index Name']),
      ).toEqual([]);
      expect(nodes.some((node) => node['Index Name'] === 'products_listed_text')).toBe(true);
    }
  });

  it('walks a sort index a bounded number of rows for words each common but never together, where PostgreSQL would walk it whole', async () => {
    for (const sort of ['price', 'name'] as const) {
      const page = await searchProducts(db, searchOf({ text: 'alpha bravo', sort, limit: 2 }));
      expect(page).toEqual({ products: [], next: null });
      const plans = await plansOf(search({ text: 'alpha bravo', sort, limit: 2 }));
      for (const nodes of plans) expect(productRowsRead(nodes)).toBeLessThanOrEqual(rareTogetherWalkBound(2));
    }
  });

  it("sorts narrow rows of a provider's listing, and reads only the page whole, where PostgreSQL would sort whole rows", async () => {
    const sorts: Partial<ProductSearch>[] = [
      { hostSlug: 'plans-07', sort: 'name' },
      { hostSlug: 'plans-07', sort: 'ram_gb', order: 'desc' },
    ];
    for (const filters of sorts) {
      const page = await searchProducts(db, searchOf(filters));
      expect(page.products).toHaveLength(20);
      const [nodes] = await plansOf(search(filters), true);
      const sortsOfMany = nodes!.filter((node) => node['Node Type'] === 'Sort' && node.Plans![0]!['Actual Rows'] > 21);
      expect(sortsOfMany.length, JSON.stringify(filters)).toBeGreaterThan(0);
      for (const sorted of sortsOfMany)
        expect(sorted.Output!.some((column) => /description|pricing_tiers/.test(column))).toBe(false);
      const wholeRows = nodes!.filter(
        (node) => node['Relation Name'] === 'products' && node.Output!.some((column) => /description/.test(column)),
      );
      expect(wholeRows.map((node) => node['Actual Rows'] * node['Actual Loops'])).toEqual([21]);
    }
  });

  it("walks a spec's index for a page, across the directory and within a category, where PostgreSQL would sort every plan giving the spec", async () => {
    // A page and the row that tells whether there are more; within a category by a spec without an index after
    // category, the directory's index of the spec is walked for the category's plans (two in three here).
    const sorts: [Partial<ProductSearch>, number][] = [
      [{ sort: 'ram_gb', order: 'desc' }, 21],
      [{ sort: 'cpu_cores' }, 21],
      [{ sort: 'port_mbps', order: 'desc' }, 21],
      [{ category: 'vps_cloud', sort: 'cpu_cores', order: 'desc' }, 21],
      [{ category: 'storage', sort: 'ram_gb' }, 21],
      [{ category: 'vps_cloud', sort: 'port_mbps' }, 2 * 21],
    ];
    for (const [filters, rowsRead] of sorts) {
      const page = await searchProducts(db, searchOf(filters));
      expect(page.products).toHaveLength(20);
      const nodes = (await plansOf(search(filters))).flat();
      expect(
        nodes.some((node) =>
          /^products_listed_(category_ram|category_cpu_cores|spec_\w+)$/.test(node['Index Name'] ?? ''),
        ),
        JSON.stringify(filters),
      ).toBe(true);
      const sortsOfMany = nodes.filter((node) => node['Node Type'] === 'Sort' && node.Plans![0]!['Actual Rows'] > 21);
      expect(sortsOfMany, JSON.stringify(filters)).toEqual([]);
      expect(productRowsRead(nodes), JSON.stringify(filters)).toBeLessThanOrEqual(rowsRead);
    }
  });

  it('walks a price-per-resource index for a page, across the directory and within a category, as the price sort does', async () => {
    const sorts: Partial<ProductSearch>[] = [
      { sort: 'price_per_ram_gb' },
      { sort: 'price_per_cpu_core', order: 'desc' },
      { category: 'vps_cloud', sort: 'price_per_cpu_core' },
      { category: 'storage', sort: 'price_per_ram_gb', order: 'desc' },
      { sort: 'price', order: 'desc' },
    ];
    for (const filters of sorts) {
      const page = await searchProducts(db, searchOf(filters));
      expect(page.products).toHaveLength(20);
      const plans = await plansOf(search(filters));
      const nodes = plans.flat();
      expect(
        nodes.some((node) => /^products_listed_(category_)?base_price/.test(node['Index Name'] ?? '')),
        JSON.stringify(filters),
      ).toBe(true);
      const sortsOfMany = nodes.filter((node) => node['Node Type'] === 'Sort' && node.Plans![0]!['Actual Rows'] > 21);
      expect(sortsOfMany).toEqual([]);
      // A page and the row that tells whether there are more (and, in the first plans, its host).
      expect(productRowsRead(nodes), JSON.stringify(filters)).toBeLessThanOrEqual(21);
    }
  });

  it('walks the products without a price per resource in id order, where PostgreSQL would find them in its index and sort them', async () => {
    // No product gives its disk: every one of the category is in the segment without the figure.
    for (const filters of [
      { category: 'vps_cloud', sort: 'price_per_disk_gb' },
      { sort: 'price_per_disk_gb' },
    ] as const) {
      const page = await searchProducts(db, searchOf(filters));
      expect(page.products).toHaveLength(20);
      const nodes = (await plansOf(search(filters))).flat();
      const sortsOfMany = nodes.filter((node) => node['Node Type'] === 'Sort' && node.Plans![0]!['Actual Rows'] > 21);
      expect(sortsOfMany, JSON.stringify(filters)).toEqual([]);
      expect(productRowsRead(nodes), JSON.stringify(filters)).toBeLessThanOrEqual(21);
    }
  });

  it("finds a plan's cheaper alternatives in two bounded walks of its category's price index, not among all its plans", async () => {
    // The dearest vps_cloud plan: 6 666 plans of its category cost less; the cheapest of them with at least its specs.
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM products WHERE category = 'vps_cloud' ORDER BY base_monthly_price DESC LIMIT 1`,
    );
    const plan = await findListedProduct(db, rows[0]!.id, freshnessOf(30, true), '2026-01-01');
    const options = { freshness: freshnessOf(30, false), dropsSince: '2026-01-01', limit: 10 };
    const found = await cheaperAlternatives(db, plan!, options);
    expect(found).toHaveLength(10);
    for (const alternative of found) {
      expect(alternative.host.slug).not.toBe(plan!.host.slug);
      expect(alternative.base_monthly_price!).toBeLessThan(plan!.base_monthly_price!);
      // The fixture's specs are text, as a number would be read.
      expect(Number(alternative.comparable_specs.ram_gb)).toBeGreaterThanOrEqual(Number(plan!.comparable_specs.ram_gb));
    }
    const [nodes] = await plansOf((q) => cheaperAlternatives(q, plan!, options));
    expect(nodes!.some((node) => node['Index Name'] === 'products_listed_category_base_price')).toBe(true);
    expect(productRowsRead(nodes!)).toBeLessThanOrEqual(2 * ALTERNATIVES_WALK + 2 * 10);
  });

  it("stops its walk from the category's cheapest plan at the last alternative it needs, where a plan has common specs", async () => {
    // A plan in the middle of vps_cloud's prices with little RAM: most cheaper plans give as much.
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM products WHERE category = 'vps_cloud' AND (spec_values ->> 'ram_gb')::numeric = 2
       ORDER BY base_monthly_price, id OFFSET 100 LIMIT 1`,
    );
    const plan = await findListedProduct(db, rows[0]!.id, freshnessOf(30, true), '2026-01-01');
    const options = { freshness: freshnessOf(30, false), dropsSince: '2026-01-01', limit: 5 };
    const found = await cheaperAlternatives(db, plan!, options);
    expect(found).toHaveLength(5);
    // The cheapest of all: the same as a sort of every cheaper plan of the category with at least its specs.
    const { rows: all } = await db.query<{ id: string }>(
      `SELECT p.id FROM products p JOIN hosts h ON h.id = p.host_id
       WHERE p.status = 'active' AND p.category = 'vps_cloud' AND p.base_monthly_price < $1 AND h.slug <> $2
         AND (p.spec_values ->> 'ram_gb')::numeric >= 2 AND (p.spec_values ->> 'cpu_cores')::numeric >= $3
       ORDER BY p.base_monthly_price, p.id LIMIT 5`,
      [plan!.base_monthly_price, plan!.host.slug, Number(plan!.comparable_specs.cpu_cores)],
    );
    expect(found.map((product) => product.id)).toEqual(all.map((row) => row.id));
    const plans = await plansOf((q) => cheaperAlternatives(q, plan!, options));
    expect(plans).toHaveLength(1);
    expect(productRowsRead(plans[0]!)).toBeLessThanOrEqual(100);
  });

  it("keeps one plan for every category's listing and every provider's, in every sort, where PostgreSQL would plan each anew", async () => {
    const kept = new Map<string, number>();
    const counting: Queryable = {
      query: (sql, params, options) => {
        if (options?.prepared) kept.set(sql, (kept.get(sql) ?? 0) + 1);
        return db.query(sql, params, options);
      },
    };
    const listings: Partial<ProductSearch>[] = [];
    for (const sort of ['price', 'name', 'newest'] as const)
      for (const category of ['vps_cloud', 'storage']) listings.push({ category, sort });
    for (const sort of ['price', 'newest'] as const)
      for (const hostSlug of ['plans-01', 'plans-02', 'plans-03']) listings.push({ hostSlug, sort });
    for (let round = 0; round < 6; round++)
      for (const listing of listings) await searchProducts(counting, searchOf(listing));
    // Each listing's statement, run a dozen times for two categories or three providers (the segment of products without a
    // price, run only for the category whose page it fills, is left out).
    const often = [...kept].filter(([, runs]) => runs >= 12).map(([sql]) => sql);
    expect(often).toHaveLength(5);
    const { rows } = await db.query<{ statement: string; generic_plans: number }>(
      // Kept with SQL's PREPARE: the text the server holds is the query that prepared the statement.
      `SELECT statement, generic_plans::int AS generic_plans FROM pg_prepared_statements, unnest($1::text[]) AS often (sql)
         WHERE position('PREPARE ' || name || ' AS ' || often.sql || ';' in statement || ';') > 0`,
      [often],
    );
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(row.generic_plans, row.statement).toBeGreaterThan(0);
  });

  it('counts each category by its own rows, where a count planned for any category read the whole directory for each', async () => {
    const [nodes] = await plansOf(keptListedCategories);
    // Each of the twenty-odd categories counted up to the cap: fewer rows than the directory holds, all together.
    expect(productRowsRead(nodes!)).toBeLessThan(PRODUCTS);
    const counted = await keptListedCategories(db);
    expect(
      Object.fromEntries(
        counted.filter((category) => category.product_count > 0).map((c) => [c.slug, c.product_count]),
      ),
    ).toEqual({
      backup: 20,
      storage: 1000,
      vps_cloud: 1000,
    });
  });
});
