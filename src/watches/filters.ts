// What a watched search keeps of its filters: columns that one SQL statement compares with a sync's changed
// products (migration 070's match_watch_changes), read from the search the directory's own parser made of the query.
import { searchTerms, termQuery } from '../catalog/search-terms.js';
import { facetsOf } from '../store/directory/conditions.js';
import type { ProductSearch } from '../store/directory/search.js';

export interface WatchFilters {
  category: string | null;
  /** a provider's slug: its id is read when the watch is stored */
  hostSlug: string | null;
  facets: string[];
  /** every word of the search, as one tsquery (each word a prefix, as the directory matches them) */
  words: string | null;
  /** the spec ranges and disk type, as a jsonpath predicate on the product's normalized specs */
  specs: string | null;
  currency: string | null;
  maxMonthlyPrice: number | null;
  maxBasePrice: number | null;
  /** the bucket the watch sits in for the hash join: its category and its first facet (either may be empty) */
  matchKey: string;
}

export class UnwatchableSearch extends Error {}

/** The filters of a search, as a watch keeps them; its sort, page and freshness do not change what a watch is told. */
export function watchFilters(search: ProductSearch): WatchFilters {
  const facets = facetsOf(search);
  let words: string | null = null;
  if (search.text !== undefined) {
    const terms = searchTerms(search.text);
    if (terms.length === 0) throw new UnwatchableSearch('the words of the search hold no letter or digit');
    words = terms.map((term) => `(${termQuery(term)})`).join(' & ');
  }
  const predicates: string[] = [];
  for (const range of search.ranges ?? []) {
    if (range.min !== undefined) predicates.push(`$.${range.key} >= ${range.min}`);
    if (range.max !== undefined) predicates.push(`$.${range.key} <= ${range.max}`);
  }
  if (search.diskType !== undefined) predicates.push(`$.disk_type == "${search.diskType}"`);
  const category = search.category ?? null;
  return {
    category,
    hostSlug: search.hostSlug ?? null,
    facets,
    words,
    specs: predicates.length > 0 ? predicates.join(' && ') : null,
    currency: search.currency ?? null,
    maxMonthlyPrice: search.maxMonthlyPrice ?? null,
    maxBasePrice: search.maxBasePrice ?? null,
    matchKey: `${category ?? ''}|${facets[0] ?? ''}`,
  };
}

/** The bucket of a watch of one product. */
export function productMatchKey(productId: string): string {
  return `product|${productId}`;
}

/**
 * The buckets a product falls in, as migration 070's watch_keys computes them in SQL: a watch meets a product only if
 * its key is one of these.
 */
export function productKeys(product: { id: string; category: string; facets: readonly string[] }): string[] {
  return [
    productMatchKey(product.id),
    `${product.category}|`,
    '|',
    ...product.facets.map((facet) => `${product.category}|${facet}`),
    ...product.facets.map((facet) => `|${facet}`),
  ];
}
