// The query of a directory search, shared by the JSON API and the HTML pages: its schema, its checks beyond
// the schema, and the cursors that carry a keyset from one page to the next.
import { Type, type Static } from '@sinclair/typebox';
import { CURRENCY_CODE_PATTERN } from '../catalog/currency.js';
import { idPattern } from '../catalog/ids.js';
import type { DirectorySort, Keyset, ProductSearch, SortOrder } from '../store/directory.js';
import { dayBefore, freshnessOf } from '../store/freshness.js';
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
  currency: Type.Optional(Type.String({ pattern: CURRENCY_CODE_PATTERN, description: 'only prices in this ISO 4217 currency' })),
  max_price: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1_000_000_000,
      description:
        'the most a product may cost per month, in `currency` (required with it); never converted between currencies; ' +
        'products without a price are left out',
    }),
  ),
  include_stale: Type.Optional(
    Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')], {
      description: "1: list stale hosts' products too (hosts whose last applied sync is older than STALE_AFTER_DAYS); left out by default",
    }),
  ),
  price_dropped_since: Type.Optional(
    Type.String({
      format: 'date',
      description: 'YYYY-MM-DD: only products whose monthly price is lower now than on that day (UTC), in the same currency',
    }),
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
function given(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Cards and answers mark a price drop of the last this many days when no price_dropped_since is asked for. */
export const PRICE_DROP_DAYS = 30;

/** Whether a day is a real calendar day: "2026-02-30" passes the format but is not one. */
function isCalendarDay(day: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) && new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;
}

/** Turns a checked query into a search; a maximum price without a currency is refused. */
export function toProductSearch(query: ProductSearchQuery, defaults: { limit?: number; staleAfterDays: number }): ProductSearch {
  const sort = query.sort ?? 'price';
  const order = query.order ?? DEFAULT_ORDER[sort];
  const currency = given(query.currency)?.toUpperCase();
  if (query.max_price !== undefined && currency === undefined) {
    throw new Problem('VALIDATION_FAILED', 'max_price needs a currency', {
      errors: [{ parameter: 'currency', code: 'required', detail: 'prices are compared within one currency: add currency=USD (or another)' }],
    });
  }
  const cursor = given(query.cursor);
  const droppedSince = given(query.price_dropped_since);
  if (droppedSince !== undefined && !isCalendarDay(droppedSince)) {
    throw new Problem('VALIDATION_FAILED', 'price_dropped_since is not a day', {
      errors: [{ parameter: 'price_dropped_since', code: 'format', detail: 'a calendar day as YYYY-MM-DD, such as 2026-11-01' }],
    });
  }
  const search: ProductSearch = {
    freshness: freshnessOf(defaults.staleAfterDays, query.include_stale === '1' || query.include_stale === 'true'),
    priceDrops: droppedSince === undefined ? { since: dayBefore(PRICE_DROP_DAYS), only: false } : { since: droppedSince, only: true },
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
  if (query.max_price !== undefined) search.maxMonthlyPrice = query.max_price;
  return search;
}
