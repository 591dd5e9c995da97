// A page of a search, or a product, with the exchange rates it is shown at, read again when the rates changed under it.
import { keptPriceContext, renewPriceContext, type PriceContext } from '../rates.js';
import type { Queryable } from '../db.js';
import type { Freshness } from '../freshness.js';
import { findListedProductAtRates, type ListedProduct } from './listed-product.js';
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

/**
 * A listed product and the price context to show it at: the context kept from earlier requests (rates.ts), read
 * again when the product's statement saw rates of another version. Null for a product that is not listed. The kept
 * context spares each product page and answer a statement that costs PostgreSQL more than the product's own.
 */
export async function findPricedProduct(
  db: Queryable,
  id: string,
  freshness: Freshness,
  dropsSince: string,
): Promise<{ product: ListedProduct; prices: PriceContext } | null> {
  const [kept, { product, ratesVersion }] = await Promise.all([
    keptPriceContext(db),
    findListedProductAtRates(db, id, freshness, dropsSince),
  ]);
  if (!product) return null;
  const prices = ratesVersion === kept.version ? kept : await renewPriceContext(db, kept, ratesVersion);
  return { product, prices };
}
