// How many products match a search, counted up to a cap, and which of its words match nothing.
import { searchTerms } from '../../catalog/search-terms.js';
import type { Queryable } from '../db.js';
import { conditionsOf } from './conditions.js';
import { keptFigures, LISTING_FIGURES_TTL_MS } from './kept-figures.js';
import type { ProductSearch } from './search.js';

/** Searches found to match more than a count's cap, by their conditions, with when that was counted. */
const broadSearches = new WeakMap<Queryable, Map<string, number>>();

/**
 * The terms of a search, each as its words, split into those that match nothing on their own within its other filters
 * (what a page that found nothing can name: "no plan here matches “cheap”") and the others. Asked only of a search
 * that found nothing; with two terms or more, each term is one count of at most one.
 */
export async function termsMatchingNothing(
  db: Queryable,
  search: ProductSearch,
): Promise<{ unmatched: string[]; matched: string[] }> {
  const typed = searchTerms(search.text ?? '').map((term) => term.words.join(' '));
  if (typed.length < 2) return { unmatched: [], matched: typed };
  const counted = await Promise.all(typed.map((text) => countProducts(db, { ...search, text, after: null }, 1)));
  return {
    unmatched: typed.filter((_, at) => counted[at]!.count === 0),
    matched: typed.filter((_, at) => counted[at]!.count > 0),
  };
}

/**
 * How many products match a search, counted up to `cap`: the exact number, or `more` when there are more than
 * `cap` (counting every match of a broad search at a million products would cost more than it tells). That a search
 * matches more than `cap` is kept LISTING_FIGURES_TTL_MS, like the other figures beside the listing: a broad listing
 * is the most visited and the dearest to count, and "more than 1 000" holds for seconds. Once that time is up, one
 * caller counts again while the others say what was counted last. A smaller count is always counted afresh.
 */
export async function countProducts(
  db: Queryable,
  search: ProductSearch,
  cap: number,
): Promise<{ count: number; more: boolean }> {
  const filters = await conditionsOf(db, search);
  if (filters === null) return { count: 0, more: false };
  const { where } = filters;
  // The search's filters, not its SQL: the freshness limit in the parameters moves with the clock.
  const { sort: _sort, order: _order, limit: _limit, after: _after, freshness, ...filtered } = search;
  const key = JSON.stringify([cap, freshness.includeStale, filtered]);
  const broad = keptFigures(broadSearches, db);
  const countedAt = broad.get(key);
  const startedAt = performance.now();
  if (countedAt !== undefined) {
    if (startedAt - countedAt < LISTING_FIGURES_TTL_MS) return { count: cap, more: true };
    // Counted again by this caller; the others, meanwhile, say what was counted last (as `keptFigure` does).
    broad.set(key, startedAt);
  }
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM products p JOIN hosts h ON h.id = p.host_id WHERE ${where.join(' AND ')} LIMIT ${filters.param(cap + 1)}) AS matches`,
    filters.params,
  );
  const n = Number(rows[0]?.n ?? 0);
  if (n <= cap) {
    broad.delete(key);
    return { count: n, more: false };
  }
  broad.set(key, startedAt);
  return { count: cap, more: true };
}
