// Figures a process keeps beside the listing (src/store/directory/kept-figures.ts): each is read once for any number of
// pages within its time, where every page would read it; the category registry is read afresh for a slug it does not
// hold; a figure, and "more than the cap", is read again once kept for its time by one caller while the others are
// answered what was read last.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../../src/store/db.js';
import { keptFilterChoices } from '../../src/store/directory/filter-choices.js';
import { findCategory, keptListedCategories } from '../../src/store/directory/listed-categories.js';
import { listListedHosts } from '../../src/store/directory/listed-hosts.js';
import { countProducts } from '../../src/store/directory/product-counts.js';
import { searchProducts } from '../../src/store/directory/product-listing.js';
import { freshnessOf } from '../../src/store/freshness.js';
import { insertHost } from '../../src/store/hosts.js';
import { openTestDatabase } from '../support/databases.js';
import { searchOf } from '../support/searches.js';
import { STORES } from '../support/server.js';

/** `db`, counting the statements whose text matches `pattern`. */
function counting(db: Database, pattern: RegExp): { db: Queryable; reads: () => number } {
  let reads = 0;
  return {
    db: {
      query: (text, params, options) => {
        if (pattern.test(text)) reads++;
        return db.query(text, params, options);
      },
    },
    reads: () => reads,
  };
}

const search = (category: string) => searchOf({ category });

/** How long a figure, and "more than the cap", is kept (LISTING_FIGURES_TTL_MS), and a little more. */
const PAST_KEPT_MS = 5_200;

describe.each(STORES)('figures kept beside the listing (%s store)', (store) => {
  let db: Database;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
    const host = await insertHost(db, { slug: `kept-${store}`, name: 'Kept Figures', default_currency: 'EUR' });
    await db.query('UPDATE hosts SET confirmed_at = now() WHERE id = $1', [host.id]);
    for (const n of [1, 2, 3]) {
      await db.query(
        `INSERT INTO products (host_id, external_id, id, status, name, category, currency, fingerprint, created_at, updated_at)
         VALUES ($1, $2, $3, 'active', $4, 'storage', 'EUR', $2, now(), now())`,
        [host.id, `k-${n}`, `prd_kept${store}${n}`, `Storage ${n}`],
      );
    }
  });
  afterAll(async () => {
    await close?.();
  });

  it('finds a category the kept registry holds without reading the registry again, and a new one at once', async () => {
    const counted = counting(db, /FROM categories/);
    expect((await findCategory(counted.db, 'storage'))?.category.slug).toBe('storage');
    const afterFirst = counted.reads();
    expect(afterFirst).toBe(1);
    for (let k = 0; k < 5; k++) expect((await findCategory(counted.db, 'vps_cloud'))?.category.slug).toBe('vps_cloud');
    expect(counted.reads()).toBe(afterFirst);

    // A slug the kept registry does not hold is looked for afresh: a category added since is found at once.
    expect(await findCategory(counted.db, 'kept_new')).toBeNull();
    expect(counted.reads()).toBe(afterFirst + 1);
    await db.query(`INSERT INTO categories (slug, label) VALUES ('kept_new', 'Kept New')`);
    expect((await findCategory(counted.db, 'kept_new'))?.category.label).toBe('Kept New');
  });

  it("reads the category counts, the filter choices, the providers' counts and what search words name once for many pages", async () => {
    const figures = [
      { read: /AS k, count\(\*\)::int AS n/, ask: (q: Queryable) => keptListedCategories(q) },
      { read: /WITH sample AS/, ask: (q: Queryable) => keptFilterChoices(q, { category: 'storage' }) },
      {
        read: /FROM unnest\(\$1::bigint\[\]\) AS h \(id\)/,
        ask: (q: Queryable) => listListedHosts(q, { limit: 30, afterSlug: null, freshness: freshnessOf(30, true) }),
      },
      {
        read: /SELECT id::text AS id, name FROM hosts/,
        ask: (q: Queryable) => searchProducts(q, searchOf({ text: 'storage' })),
      },
    ];
    if (store === 'postgres')
      figures.push({ read: /FROM pg_stats/, ask: (q: Queryable) => searchProducts(q, searchOf({ text: 'storage' })) });
    for (const { read, ask } of figures) {
      const counted = counting(db, read);
      for (let page = 0; page < 5; page++) await ask(counted.db);
      expect(counted.reads(), String(read)).toBe(1);
    }
    const counts = await keptListedCategories(db);
    expect(counts.find((category) => category.slug === 'storage')?.product_count).toBe(3);
  });

  it('reads a figure, and counts "more than the cap", again by one caller once kept for its time; counts within the cap afresh', async () => {
    // The registry's statement is the first a count of the categories sends: one caller reading it again sends it at once.
    const categories = counting(db, /SELECT slug, label FROM categories ORDER BY label/);
    await keptListedCategories(categories.db);
    const counted = counting(db, /SELECT count\(\*\)::int AS n FROM \(/);
    expect(await countProducts(counted.db, search('storage'), 2)).toEqual({ count: 2, more: true });
    expect(counted.reads()).toBe(1);
    expect(await countProducts(counted.db, search('storage'), 2)).toEqual({ count: 2, more: true });
    expect(counted.reads()).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, PAST_KEPT_MS));
    const burst = await Promise.all(Array.from({ length: 8 }, () => countProducts(counted.db, search('storage'), 2)));
    expect(burst).toEqual(Array.from({ length: 8 }, () => ({ count: 2, more: true })));
    expect(counted.reads()).toBe(2);
    const listed = await Promise.all(Array.from({ length: 8 }, () => keptListedCategories(categories.db)));
    for (const answer of listed) expect(answer.find((category) => category.slug === 'storage')?.product_count).toBe(3);
    expect(categories.reads()).toBe(2);

    // Within the cap: every caller counts, and sees the count as it is.
    expect(await countProducts(counted.db, search('storage'), 5)).toEqual({ count: 3, more: false });
    expect(await countProducts(counted.db, search('storage'), 5)).toEqual({ count: 3, more: false });
    expect(counted.reads()).toBe(4);
  });
});
