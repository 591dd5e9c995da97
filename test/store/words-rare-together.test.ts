// Words each common in the directory may be rare together, which PostgreSQL's statistics cannot tell: a search for them
// walks the sort index for a bounded number of rows, and a page it cannot fill there is read again with the words
// leading (store/directory/product-listing.ts, searchProducts). Whichever way a page is found, it must be the exact
// page: every match, in order, page after page, in every walkable sort, on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.js';
import { searchProducts } from '../../src/store/directory/product-listing.js';
import type { ProductSearch } from '../../src/store/directory/search.js';
import { insertHost } from '../../src/store/hosts.js';
import { openTestDatabase } from '../support/databases.js';
import { searchOf } from '../support/searches.js';
import { STORES } from '../support/server.js';

const PRODUCTS = 1_200;
/** The few products whose names hold both words: the dearest, the last by name and the oldest, out of any walk's reach. */
const BOTH = new Set([PRODUCTS - 7, PRODUCTS - 3, PRODUCTS]);

interface Made {
  id: string;
  name: string;
  category: string;
  price: number;
}

function nameOf(n: number): string {
  if (BOTH.has(n)) return `Zulu alpha bravo ${n}`;
  return n % 2 === 0 ? `Alpha plan ${n}` : `Bravo plan ${n}`;
}

describe.each(STORES)('words each common, rare together (%s store)', (store) => {
  let database: { db: Database; close(): Promise<void> };
  const made: Made[] = [];

  beforeAll(async () => {
    database = await openTestDatabase(store);
    const { db } = database;
    const host = await insertHost(db, { slug: 'words', name: 'Words', default_currency: 'EUR' });
    await db.query('UPDATE hosts SET confirmed_at = now() WHERE id = $1', [host.id]);
    // Ids in reverse of n, so that "newest" (id descending) puts the oldest of the both-words products last.
    const rows = Array.from({ length: PRODUCTS }, (_, k) => {
      const n = k + 1;
      return {
        id: `prd_words${String(PRODUCTS - n).padStart(5, '0')}`,
        name: nameOf(n),
        category: n % 3 === 0 ? 'storage' : 'vps_cloud',
        price: n,
      };
    });
    made.push(...rows);
    await db.query(
      `INSERT INTO products (host_id, external_id, id, status, name, category, currency, price, base_monthly_price, fingerprint, created_at, updated_at)
       SELECT $1, r.id, r.id, 'active', r.name, r.category, 'EUR', r.price, r.price, r.id, now(), now()
       FROM json_to_recordset($2::json) AS r (id text, name text, category text, price numeric)`,
      [host.id, JSON.stringify(rows)],
    );
    await db.query('ANALYZE products');
  });
  afterAll(async () => {
    await database?.close();
  });

  /** Every page of a search, followed by its cursor: the names in order. */
  async function allPages(search: Partial<ProductSearch>): Promise<string[][]> {
    const pages: string[][] = [];
    let after: ProductSearch['after'] = null;
    for (let guard = 0; guard < 50; guard++) {
      const page = await searchProducts(database.db, searchOf({ ...search, after }));
      pages.push(page.products.map((product) => product.name));
      if (page.next === null) return pages;
      after = page.next;
    }
    throw new Error('more pages than there are products');
  }

  const expected = (keep: (made: Made) => boolean, compare: (a: Made, b: Made) => number, limit: number) => {
    const names = made
      .filter(keep)
      .sort(compare)
      .map((m) => m.name);
    const pages: string[][] = [];
    for (let at = 0; at < names.length; at += limit) pages.push(names.slice(at, at + limit));
    return pages.length === 0 ? [[]] : pages;
  };
  const both = (m: Made) => BOTH.has(Number(m.name.split(' ').at(-1)));
  const byPrice = (a: Made, b: Made) => a.price - b.price || a.id.localeCompare(b.id);
  const byName = (a: Made, b: Made) =>
    a.name.toLowerCase() < b.name.toLowerCase()
      ? -1
      : a.name.toLowerCase() > b.name.toLowerCase()
        ? 1
        : a.id.localeCompare(b.id);
  const byNewest = (a: Made, b: Made) => b.id.localeCompare(a.id);

  it('finds the statistics call each word common, so that the sort index is walked for them', async () => {
    if (store !== 'postgres') return;
    const { rows } = await database.db.query<{ lexeme: string; freq: number }>(
      `SELECT e.lexeme, e.freq FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, freq)
       WHERE s.tablename = 'products' AND s.attname = 'search_text' AND e.lexeme IN ('alpha', 'bravo')`,
    );
    expect(rows.map((row) => row.lexeme).sort()).toEqual(['alpha', 'bravo']);
    for (const row of rows) expect(Number(row.freq)).toBeGreaterThan(0.4);
  });

  it.each([
    ['price', 'asc', byPrice],
    ['price', 'desc', (a: Made, b: Made) => -byPrice(a, b)],
    ['name', 'asc', byName],
    ['name', 'desc', (a: Made, b: Made) => -byName(a, b)],
    ['newest', 'desc', byNewest],
  ] as const)('pages through both words together sorted by %s %s, exactly', async (sort, order, compare) => {
    for (const limit of [1, 2, 20]) {
      expect(await allPages({ text: 'alpha bravo', sort, order, limit })).toEqual(expected(both, compare, limit));
    }
  });

  it('pages through both words sorted by a spec none of them gives (the segment after, by id), exactly', async () => {
    const byId = (a: Made, b: Made) => a.id.localeCompare(b.id);
    expect(await allPages({ text: 'alpha bravo', sort: 'ram_gb', limit: 2 })).toEqual(expected(both, byId, 2));
  });

  it('pages through one common word, found by the walk, exactly', async () => {
    const alpha = (m: Made) => /alpha/i.test(m.name);
    const pages = await allPages({ text: 'alpha', sort: 'price', limit: 100 });
    expect(pages).toEqual(expected(alpha, byPrice, 100));
    expect(pages.length).toBeGreaterThan(5);
  });

  it('keeps to a category, and finds nothing where the words never meet in it', async () => {
    const inStorage = (m: Made) => m.category === 'storage';
    expect(await allPages({ text: 'alpha bravo', category: 'storage', sort: 'name', limit: 2 })).toEqual(
      expected((m) => both(m) && inStorage(m), byName, 2),
    );
    expect(
      await allPages({ text: 'alpha bravo', category: 'vps_cloud', sort: 'price', order: 'desc', limit: 1 }),
    ).toEqual(
      expected(
        (m) => both(m) && !inStorage(m),
        (a, b) => -byPrice(a, b),
        1,
      ),
    );
    expect(await allPages({ text: 'plan zulu', limit: 5 })).toEqual([[]]);
  });
});
