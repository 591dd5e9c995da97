// The key of each sort as SQL, and the segments of the sorts whose key some products lack.
import { PRICE_PER_SORT_KEY, PRICE_PER_SORTS, PRICE_PER_SPEC, type PricePerSort } from '../../catalog/price-per.js';
import { NUMERIC_SPEC_KEYS, UNLIMITED, type NumericSpec } from '../../catalog/specs.js';
import { specExpression } from './listed-product.js';
import type { DirectorySort } from './search.js';

/**
 * A sort key: as SQL; `unwalkable`, the same order through an expression no index covers (`+ 0`, `|| ''`), which
 * keeps PostgreSQL from walking the sort index for a search the text index is to lead; the cast of the text a cursor
 * carries.
 */
export type SortKey = { expression: string; unwalkable: string; cast: string; key?: string };

function specSortKey(key: NumericSpec): SortKey {
  return { expression: specExpression(key), unwalkable: `(${specExpression(key)} + 0)`, cast: '::numeric' };
}

/**
 * A price per resource in EUR: the price sort's base price divided by the spec, to six decimals; null without either,
 * or for none or an unlimited amount (catalog/price-per.ts). Written exactly as migration 081 indexes it.
 */
export function pricePerExpression(spec: NumericSpec): string {
  const amount = `(p.spec_values ->> '${spec}')::numeric`;
  return `(CASE WHEN ${amount} > 0 AND ${amount} < ${UNLIMITED} THEN round(p.base_monthly_price / ${amount}, 6) END)`;
}

function pricePerSortKey(sort: PricePerSort): SortKey {
  const expression = pricePerExpression(PRICE_PER_SPEC[PRICE_PER_SORT_KEY[sort]]);
  return { expression, unwalkable: `(${expression} + 0)`, cast: '::numeric' };
}

/** The sort key of each sort. */
export const SORT_KEY: Record<DirectorySort, SortKey> = {
  price: { expression: 'p.base_monthly_price', unwalkable: '(p.base_monthly_price + 0)', cast: '::numeric' },
  name: {
    expression: 'lower(p.name) COLLATE "C"',
    unwalkable: `(lower(p.name) || '') COLLATE "C"`,
    cast: '::text COLLATE "C"',
  },
  newest: { expression: 'p.id', unwalkable: `(p.id || '')`, cast: '::text' },
  ...(Object.fromEntries(NUMERIC_SPEC_KEYS.map((key) => [key, specSortKey(key)])) as Record<NumericSpec, SortKey>),
  ...(Object.fromEntries(PRICE_PER_SORTS.map((sort) => [sort, pricePerSortKey(sort)])) as Record<
    PricePerSort,
    SortKey
  >),
};

/** The sort keys of the prices per resource, each walked in its own indexes (migration 081). */
export const PRICE_PER_SORT_KEYS: ReadonlySet<SortKey> = new Set(PRICE_PER_SORTS.map((sort) => SORT_KEY[sort]));

/**
 * Sorts whose key some products lack (no price, no such spec, no price per it): those follow the others, in a segment
 * of their own.
 */
export function segmented(sort: DirectorySort): boolean {
  return sort !== 'name' && sort !== 'newest';
}

/**
 * The sort key a cursor carries for a product without a monthly price. Sorted by price, such products come after
 * every priced one in both orders, by id in the order's direction: a separate segment of the listing.
 */
export const UNPRICED_KEY = '';

/** The monthly price as sent, for a price sort within one currency. */
export const NATIVE_PRICE_KEY: SortKey = {
  expression: 'p.monthly_price',
  unwalkable: '(p.monthly_price + 0)',
  cast: '::numeric',
};

/** Unpriced products, sorted by price, are in id order with the cursor key UNPRICED_KEY. */
export const UNPRICED_SORT_KEY: SortKey = { expression: 'p.id', unwalkable: `(p.id || '')`, cast: '::text', key: `''` };
