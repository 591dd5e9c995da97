// A page of a search with the exchange rates it is shown at, read again when the rates changed under it.
import { keptPriceContext, renewPriceContext, type PriceContext } from '../rates.js';
import type { Queryable } from '../db.js';
import { searchProducts } from './product-listing.js';
import type { ProductSearch } from './search.js';

/** A page of a search, what was counted beside it, and the price context the page is shown at. */
export interface PricedSearch<T> {
  search: ProductSearch;
  page: Awaited<ReturnType<typeof searchProducts>>;
  beside: T;
  prices: PriceContext;
}

/**
 * A page of a search with the price context to show it at. `build` makes the search from a price context: it
 * converts a price limit with its rates, and refuses a display currency without one. The context kept from earlier
 * requests serves first (rates.ts); the search's statement reads the rates' version beside its rows, and
 * when that is not the kept context's (a rates import since, from any process) the context is read again and a
 * search built on the rates is run again. A refusal is only ever made on rates read afresh. `beside` (a count) runs
 * with the search, and again with it.
 */
export async function pricedSearch<T>(
  db: Queryable,
  build: (prices: PriceContext) => ProductSearch,
  beside: (search: ProductSearch) => Promise<T>,
): Promise<PricedSearch<T>> {
  let prices = await keptPriceContext(db);
  let search: ProductSearch;
  try {
    search = build(prices);
  } catch {
    // Refused (or not buildable) at the kept rates: built again at the rates as they are, and refused only then.
    prices = await renewPriceContext(db, prices, undefined);
    search = build(prices);
  }
  const run = (s: ProductSearch) => Promise.all([searchProducts(db, s, { ratesVersion: true }), beside(s)]);
  let [page, counted] = await run(search);
  if (page.ratesVersion === undefined || page.ratesVersion !== prices.version) {
    prices = await renewPriceContext(db, prices, page.ratesVersion);
    const rebuilt = build(prices);
    if (rebuilt.maxBasePrice !== search.maxBasePrice) [page, counted] = await run(rebuilt);
    search = rebuilt;
  }
  return { search, page, beside: counted, prices };
}
