// How a page of the listing is read: which index PostgreSQL is left to walk, and where it is kept from one. What each
// choice keeps PostgreSQL from doing is shown by test/store/search-plans.test.ts.
import type { Queryable } from '../db.js';
import { keptFigure, WORD_STATISTICS_TTL_MS } from './kept-figures.js';
import type { ProductSearch } from './search.js';
import { PRICE_PER_SORT_KEYS, SORT_KEY, UNPRICED_SORT_KEY, type SortKey } from './sort-keys.js';

/**
 * Whether an index of the host's serves its listing in this order: by id (products_host_status) or, unless the text
 * leads (its matches are sorted then), by the base price (migration 055).
 */
export function hostIndexed(key: SortKey, textLeads: boolean): boolean {
  return key.expression === 'p.id' || (key === SORT_KEY.price && !textLeads);
}

/**
 * Below this share of the listing, walking a sort index to fill a page reads more rows than sorting the matches:
 * a page of 20 among a million rows costs about 20 / share rows to walk and share × 1 000 000 to sort.
 */
const COMMON_WORD_SHARE = 0.005;

/**
 * The rows a sort index is walked for words each common, which may be rare together: what a page of matches as common
 * as COMMON_WORD_SHARE fills on average. Taking the words as independent, PostgreSQL expects many products to hold
 * them all and walks the index whole for a page that never fills.
 */
export function rareTogetherWalkBound(limit: number): number {
  return Math.ceil((limit + 1) / COMMON_WORD_SHARE);
}

/**
 * Whether one sort index serves a walk of the listing by itself (its status, category, a segment's null key and the
 * cursor; migrations 003, 008, 041, 081): the base price, a price per resource, name and newest, within a category
 * or not, and a price sort's unpriced segment outside one (the ids without a EUR price, or without a price).
 * Elsewhere a bounded walk would read more rows than its bound (a spec sort's products without the spec are found
 * among all of them) or sort first.
 */
export function walkIndexed(key: SortKey, search: Pick<ProductSearch, 'sort' | 'category'>): boolean {
  if (key === SORT_KEY.price || key === SORT_KEY.name || key === SORT_KEY.newest) return true;
  if (PRICE_PER_SORT_KEYS.has(key)) return true;
  return key === UNPRICED_SORT_KEY && search.sort === 'price' && search.category === undefined;
}

/**
 * Whether the statistics of the last ANALYZE (pg_stats.most_common_elems) know each word, as a prefix, to occur in
 * many products: a rare word is then searched with the text index leading (searchProducts), rather than by a walk of
 * the sort index that reads the listing through for it. Kept WORD_STATISTICS_TTL_MS: they change only with ANALYZE.
 */
export function wordsAreCommon(db: Queryable, words: string[]): Promise<boolean> {
  return keptFigure(db, `common:${JSON.stringify(words)}`, WORD_STATISTICS_TTL_MS, () => wordShares(db, words));
}

async function wordShares(db: Queryable, words: string[]): Promise<boolean> {
  const { rows } = await db.query<{ share: number | string }>(
    `SELECT coalesce(min(share), 0) AS share FROM (
       SELECT w.word, coalesce(sum(e.freq), 0) AS share
       FROM unnest($1::text[]) AS w(word)
       LEFT JOIN (
         SELECT e.lexeme, e.freq
         FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, freq)
         WHERE s.schemaname = current_schema() AND s.tablename = 'products' AND s.attname = 'search_text'
       ) AS e ON starts_with(e.lexeme, w.word)
       GROUP BY w.word) AS shares`,
    [words],
  );
  return Number(rows[0]?.share ?? 0) >= COMMON_WORD_SHARE;
}
