// The query of a directory search, shared by the JSON API and the HTML pages: its schema, its checks beyond
// the schema, and the cursors that carry a keyset from one page to the next.
import { Type, type Static } from '@sinclair/typebox';
import { CURRENCY_CODE_PATTERN } from '../catalog/currency.js';
import { idPattern } from '../catalog/ids.js';
import type { DirectorySort, Keyset, ProductSearch, SortOrder } from '../store/directory.js';
import { BASE_CURRENCY, type RateTable } from '../catalog/rates.js';
import { Problem } from './problems.js';

const DIRECTORY_SORTS = ['price', 'newest', 'name'] as const satisfies readonly DirectorySort[];

/** The order a sort takes when none is asked for: cheapest, newest, A to Z. */
const DEFAULT_ORDER: Record<DirectorySort, SortOrder> = { price: 'asc', newest: 'desc', name: 'asc' };

export const ProductSearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200, description: 'words of the name or description; each matches as a prefix' })),
  category: Type.Optional(Type.String({ maxLength: 64, description: 'a category slug' })),
  location: Type.Optional(Type.String({ maxLength: 200, description: 'a datacenter location, exactly as listed' })),
  feature: Type.Optional(Type.String({ maxLength: 200, description: 'a feature, exactly as listed' })),
  host: Type.Optional(Type.String({ maxLength: 63, description: "a host's slug" })),
  currency: Type.Optional(
    Type.String({
      pattern: CURRENCY_CODE_PATTERN,
      description: 'only products priced in this ISO 4217 currency; sorted by price, they are then in the order of their prices as sent',
    }),
  ),
  display_currency: Type.Optional(
    Type.String({
      pattern: CURRENCY_CODE_PATTERN,
      description:
        'the currency of `converted` and of max_price: EUR or one with an exchange rate (422 otherwise); ' +
        'default: `currency` if it has a rate, else the server\'s DISPLAY_CURRENCY',
    }),
  ),
  max_price: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1_000_000_000,
      description:
        'the most a product may cost per month, in the display currency: converted, compared with every product that has a ' +
        'price in EUR (products whose currency has no rate, and products without a price, are left out); with `currency` ' +
        'equal to the display currency, compared with the prices as sent',
    }),
  ),
  period: Type.Optional(
    Type.Union([Type.Literal('month'), Type.Literal('year')], { description: 'the pages show prices per month (default) or per year; the JSON answer carries both' }),
  ),
  sort: Type.Optional(Type.Union(DIRECTORY_SORTS.map((sort) => Type.Literal(sort)), { default: 'price', description: 'price is the monthly price; products without one come last in both orders' })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'default: asc for price and name, desc for newest' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 500, description: 'next_cursor of the previous page, unchanged' })),
});
export type ProductSearchQuery = Static<typeof ProductSearchQuery>;

interface CursorContent {
  sort: DirectorySort;
  order: SortOrder;
  key: string;
  id: string;
}

const PRODUCT_ID = new RegExp(idPattern('prd'));
const SORT_KEY_SHAPE: Record<DirectorySort, RegExp> = {
  // UNPRICED_KEY (empty) marks the products without a price, which follow every priced one.
  price: /^(\d{1,10}(\.\d{1,20})?)?$/,
  name: /^[^\u0000]{1,200}$/u,
  newest: PRODUCT_ID,
};

export function encodeSearchCursor(sort: DirectorySort, order: SortOrder, next: Keyset | null): string | null {
  if (!next) return null;
  return Buffer.from(JSON.stringify([sort, order, next.key, next.id]), 'utf8').toString('base64url');
}

function invalidCursor(detail: string): Problem {
  return new Problem('VALIDATION_FAILED', 'the cursor is not one this server issued for this sort', {
    errors: [{ parameter: 'cursor', code: 'invalid_cursor', detail }],
  });
}

function decodeSearchCursor(cursor: string, sort: DirectorySort, order: SortOrder): Keyset {
  let content: unknown;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('pass next_cursor from a previous page unchanged');
  }
  if (!Array.isArray(content) || content.length !== 4 || !content.every((part) => typeof part === 'string')) {
    throw invalidCursor('pass next_cursor from a previous page unchanged');
  }
  const [cursorSort, cursorOrder, key, id] = content as [string, string, string, string];
  if (cursorSort !== sort || cursorOrder !== order) {
    throw invalidCursor(`the cursor belongs to sort=${cursorSort}&order=${cursorOrder}; keep the query of the first page`);
  }
  if (!PRODUCT_ID.test(id) || !SORT_KEY_SHAPE[sort].test(key)) throw invalidCursor('pass next_cursor from a previous page unchanged');
  return { key, id } satisfies Omit<CursorContent, 'sort' | 'order'>;
}

/** Empty parameters (as an HTML form sends them) mean "no filter". */
export function given(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * Turns a checked query into a search. A maximum price is in the display currency (`prices`): compared with the
 * prices as sent when the search is within that one currency, else converted into EUR and compared with the EUR prices.
 */
export function toProductSearch(
  query: ProductSearchQuery,
  defaults: { limit?: number } = {},
  prices: { currency: string; rates: RateTable } = { currency: BASE_CURRENCY, rates: new Map() },
): ProductSearch {
  const sort = query.sort ?? 'price';
  const order = query.order ?? DEFAULT_ORDER[sort];
  const currency = given(query.currency)?.toUpperCase();
  const cursor = given(query.cursor);
  const search: ProductSearch = {
    sort,
    order,
    limit: query.limit ?? defaults.limit ?? 20,
    after: cursor ? decodeSearchCursor(cursor, sort, order) : null,
  };
  const text = given(query.q);
  const category = given(query.category);
  const location = given(query.location);
  const feature = given(query.feature);
  const host = given(query.host);
  if (text !== undefined) search.text = text;
  if (category !== undefined) search.category = category;
  if (location !== undefined) search.location = location;
  if (feature !== undefined) search.feature = feature;
  if (host !== undefined) search.hostSlug = host;
  if (currency !== undefined) search.currency = currency;
  if (query.max_price !== undefined) {
    if (currency === prices.currency) {
      search.maxMonthlyPrice = query.max_price;
    } else {
      const rate = prices.currency === BASE_CURRENCY ? 1 : prices.rates.get(prices.currency)?.rate;
      if (rate === undefined) {
        throw new Problem('VALIDATION_FAILED', `no exchange rate for ${prices.currency}`, {
          errors: [{ parameter: 'display_currency', code: 'no_rate', detail: `max_price is in the display currency, which has no exchange rate` }],
        });
      }
      // Rounded up to the stored precision, so that a product priced exactly at the limit is in.
      search.maxBasePrice = Math.ceil((query.max_price / rate) * 1e6) / 1e6;
    }
  }
  return search;
}
