// What the sitemap lists: listed hosts and products, read in keyset order a bounded chunk at a time, so that a
// directory of millions of products is never loaded at once.
import type { Queryable } from './db.js';
import { iso } from './rows.js';

/** A sitemap page: the keys from `from` (inclusive) up to `to` (exclusive; null: to the end). */
export interface SitemapRange {
  from: string | null;
  to: string | null;
}

/**
 * The ranges of at most `perPage` keys each: the first key of every page, from one index-only walk of the listed
 * products' id index (or of the hosts' slugs) that returns one row per page. A product of a suspended host is
 * counted here and left out of its page, which then lists fewer.
 */
async function rangesOf(db: Queryable, sql: string, perPage: number): Promise<SitemapRange[]> {
  const { rows } = await db.query<{ key: string }>(sql, [perPage]);
  const starts = rows.map((row) => row.key);
  if (starts.length === 0) return [{ from: null, to: null }];
  return starts.map((key, i) => ({ from: i === 0 ? null : key, to: starts[i + 1] ?? null }));
}

export function sitemapProductRanges(db: Queryable, perPage: number): Promise<SitemapRange[]> {
  return rangesOf(
    db,
    `SELECT id AS key FROM (
       SELECT id, row_number() OVER (ORDER BY id) AS n FROM products WHERE status = 'active'
     ) numbered WHERE n % $1 = 1 ORDER BY id`,
    perPage,
  );
}

export function sitemapHostRanges(db: Queryable, perPage: number): Promise<SitemapRange[]> {
  return rangesOf(
    db,
    `SELECT slug AS key FROM (
       SELECT slug, row_number() OVER (ORDER BY slug) AS n FROM hosts WHERE status = 'active'
     ) numbered WHERE n % $1 = 1 ORDER BY slug`,
    perPage,
  );
}

export interface SitemapEntry {
  key: string;
  lastmod: string | null;
}

/** Rows fetched per query while a page is written. */
const CHUNK = 5_000;

/**
 * Listed products of a range, `limit` at most, in id order, each with its last change; read CHUNK at a time after
 * the last id seen.
 */
export async function* sitemapProducts(
  db: Queryable,
  range: SitemapRange,
  limit: number,
): AsyncGenerator<SitemapEntry[]> {
  let after: string | null = null;
  let left = limit;
  while (left > 0) {
    const { rows }: { rows: { id: string; updated_at: Date | string }[] } = await db.query<{
      id: string;
      updated_at: Date | string;
    }>(
      `SELECT p.id, p.updated_at FROM products p JOIN hosts h ON h.id = p.host_id
       WHERE p.status = 'active' AND h.status = 'active'
         AND ($1::text IS NULL OR p.id >= $1::text) AND ($2::text IS NULL OR p.id < $2::text)
         AND ($3::text IS NULL OR p.id > $3::text)
       ORDER BY p.id LIMIT $4`,
      [range.from, range.to, after, Math.min(CHUNK, left)],
    );
    if (rows.length > 0) yield rows.map((row) => ({ key: row.id, lastmod: iso(row.updated_at) }));
    if (rows.length < Math.min(CHUNK, left)) return;
    left -= rows.length;
    after = rows.at(-1)!.id;
  }
}

/** Listed hosts of a range, `limit` at most, in slug order, CHUNK at a time. */
export async function* sitemapHosts(db: Queryable, range: SitemapRange, limit: number): AsyncGenerator<SitemapEntry[]> {
  let after: string | null = null;
  let left = limit;
  while (left > 0) {
    const { rows }: { rows: { slug: string }[] } = await db.query<{ slug: string }>(
      `SELECT slug FROM hosts
       WHERE status = 'active' AND ($1::text IS NULL OR slug >= $1::text) AND ($2::text IS NULL OR slug < $2::text)
         AND ($3::text IS NULL OR slug > $3::text)
       ORDER BY slug LIMIT $4`,
      [range.from, range.to, after, Math.min(CHUNK, left)],
    );
    if (rows.length > 0) yield rows.map((row) => ({ key: row.slug, lastmod: null }));
    if (rows.length < Math.min(CHUNK, left)) return;
    left -= rows.length;
    after = rows.at(-1)!.slug;
  }
}
