// Figures a process keeps beside the listing (src/store/directory/kept-figures.ts): the category registry is read once
// for a category it holds and afresh only for a slug it does not; "more than the cap" is counted again, once kept for
// its time, by one caller while the others say what was counted last.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../../src/store/db.js';
import { findCategory } from '../../src/store/directory/listed-categories.js';
import { countProducts } from '../../src/store/directory/product-counts.js';
import { insertHost } from '../../src/store/hosts.js';
import { openTestDatabase } from '../support/databases.js';
import { searchOf } from '../support/searches.js';

/** `db`, counting the statements whose text matches `pattern`. */
function counting(db: Database, pattern: RegExp): { db: Queryable; reads: () => number } {
  let reads = 0;
  return {
    db: {
      query: (text, params, options) => {
        if (pattern.test(text)) reads++;
        return db.query(text, params, options);
      },
    } as Queryable,
    reads: () => reads,
  };
}

const search = (category: string) => searchOf({ category });

/** How long "more than the cap" is kept (LISTING_FIGURES_TTL_MS), and a little more. */
const PAST_KEPT_MS = 5_200;

describe.each(['postgres', 'embedded'] as const)('figures kept beside the listing (%s store)', (store) => {
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

  it('counts "more than the cap" again by one caller once kept for its time, and counts within the cap afresh', async () => {
    const counted = counting(db, /SELECT count\(\*\)::int AS n FROM \(/);
    expect(await countProducts(counted.db, search('storage'), 2)).toEqual({ count: 2, more: true });
    expect(counted.reads()).toBe(1);
    expect(await countProducts(counted.db, search('storage'), 2)).toEqual({ count: 2, more: true });
    expect(counted.reads()).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, PAST_KEPT_MS));
    const burst = await Promise.all(Array.from({ length: 8 }, () => countProducts(counted.db, search('storage'), 2)));
    expect(burst).toEqual(Array.from({ length: 8 }, () => ({ count: 2, more: true })));
    expect(counted.reads()).toBe(2);

    // Within the cap: every caller counts, and sees the count as it is.
    expect(await countProducts(counted.db, search('storage'), 5)).toEqual({ count: 3, more: false });
    expect(await countProducts(counted.db, search('storage'), 5)).toEqual({ count: 3, more: false });
    expect(counted.reads()).toBe(4);
  });
});
