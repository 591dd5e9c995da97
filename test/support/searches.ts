// A directory search as the store takes it (src/store/directory/search.ts), with the defaults a page would give it:
// fresh providers only, 30 days, price drops marked since the start of November, sorted by price, 20 a page.
import type { ProductSearch } from '../../src/store/directory/search.js';
import { freshnessOf } from '../../src/store/freshness.js';

export function searchOf(filters: Partial<ProductSearch>): ProductSearch {
  return {
    freshness: freshnessOf(30, false),
    priceDrops: { since: '2026-11-01', only: false },
    sort: 'price',
    order: 'asc',
    limit: 20,
    after: null,
    ...filters,
  };
}
