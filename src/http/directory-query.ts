// The query of a directory search, shared by the JSON API and the HTML pages: its schema, its checks beyond
// the schema, and the cursors that carry a keyset from one page to the next.
import { Type, type Static, type TNumber, type TOptional } from '@sinclair/typebox';
import { CURRENCY_CODE_PATTERN } from '../catalog/currency.js';
import { COUNTRY_LABELS } from '../catalog/gazetteer.js';
import { idPattern } from '../catalog/ids.js';
import { PRICE_PER_SORTS, type PricePerSort } from '../catalog/price-per.js';
import { DISK_TYPES, NUMERIC_SPEC_KEYS, NUMERIC_SPECS, UNLIMITED, type NumericSpec } from '../catalog/specs.js';
import type { DirectorySort, Keyset, ProductSearch, SortOrder, SpecRange } from '../store/directory/search.js';
import { BASE_CURRENCY, type RateTable } from '../catalog/rates.js';
import { dayBefore, freshnessOf } from '../store/freshness.js';
import { Problem } from './problems.js';

const DIRECTORY_SORTS = [
  'price',
  'newest',
  'name',
  ...NUMERIC_SPEC_KEYS,
  ...PRICE_PER_SORTS,
] as const satisfies readonly DirectorySort[];

/** The order a sort takes when none is asked for: cheapest, newest, A to Z, the most of a spec, the best value. */
const DEFAULT_ORDER: Record<DirectorySort, SortOrder> = {
  price: 'asc',
  newest: 'desc',
  name: 'asc',
  ...(Object.fromEntries(NUMERIC_SPEC_KEYS.map((key) => [key, 'desc'])) as Record<NumericSpec, SortOrder>),
  ...(Object.fromEntries(PRICE_PER_SORTS.map((sort) => [sort, 'asc'])) as Record<PricePerSort, SortOrder>),
};

const specUnit = (key: NumericSpec) => (NUMERIC_SPECS[key].unit ? ` in ${NUMERIC_SPECS[key].unit}` : '');

/** min_<key> and max_<key> of every numeric spec of the vocabulary. */
const SPEC_RANGES = Object.fromEntries(
  NUMERIC_SPEC_KEYS.flatMap((key) => [
    [
      `min_${key}`,
      Type.Optional(
        Type.Number({
          minimum: 0,
          maximum: UNLIMITED,
          description: `at least this ${key}${specUnit(key)}; products whose specs do not give it are left out`,
        }),
      ),
    ],
    [
      `max_${key}`,
      Type.Optional(
        Type.Number({
          minimum: 0,
          maximum: UNLIMITED,
          description: `at most this ${key}${specUnit(key)}; "unlimited" is more than any figure`,
        }),
      ),
    ],
  ]),
) as Record<`${'min' | 'max'}_${NumericSpec}`, TOptional<TNumber>>;

/** The range parameters' names, in the schema's order. */
export const SPEC_RANGE_PARAMETERS = Object.keys(SPEC_RANGES) as (keyof typeof SPEC_RANGES)[];

export const ProductSearchQuery = Type.Object({
  q: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'words, each matched as a prefix in the name, description, provider name, category label, features, locations ' +
        '(with their cities and countries), spec values and normalized spec words (nvme, ssd, unmetered); every word must match',
    }),
  ),
  category: Type.Optional(Type.String({ maxLength: 64, description: 'a category slug' })),
  location: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'a city by any name or code the gazetteer knows ("FRA", "Frankfurt am Main"), a country name, or a location as listed; case and spacing ignored',
    }),
  ),
  feature: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'a feature as listed; case and spacing ignored ("ddos protection" finds "DDoS-Protection")',
    }),
  ),
  country: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z]{2}$',
      description: 'ISO 3166-1 alpha-2 code of a datacenter location, any case (locations read through the gazetteer)',
    }),
  ),
  disk_type: Type.Optional(
    Type.Union(
      DISK_TYPES.map((type) => Type.Literal(type)),
      { description: 'the normalized disk type' },
    ),
  ),
  ...SPEC_RANGES,
  host: Type.Optional(Type.String({ maxLength: 63, description: "a host's slug" })),
  currency: Type.Optional(
    Type.String({
      pattern: CURRENCY_CODE_PATTERN,
      description:
        'only products priced in this ISO 4217 currency; sorted by price, they are then in the order of their prices as sent',
    }),
  ),
  display_currency: Type.Optional(
    Type.String({
      pattern: CURRENCY_CODE_PATTERN,
      description:
        'the currency of `converted` and of max_price: EUR or one with an exchange rate (422 otherwise); ' +
        "default: `currency` if it has a rate, else the server's DISPLAY_CURRENCY",
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
    Type.Union([Type.Literal('month'), Type.Literal('year')], {
      description: 'the pages show prices per month (default) or per year; the JSON answer carries both',
    }),
  ),
  include_stale: Type.Optional(
    Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')], {
      description:
        "1: list stale hosts' products too (hosts whose last applied sync is older than STALE_AFTER_DAYS); left out by default",
    }),
  ),
  in_stock: Type.Optional(
    Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')], {
      description:
        '1: only plans that can be bought (sold-out plans, stock 0, left out; plans whose stock is not tracked kept)',
    }),
  ),
  price_dropped_since: Type.Optional(
    Type.String({
      format: 'date',
      description:
        'YYYY-MM-DD: only products whose monthly price is lower now than on that day (UTC), in the same currency',
    }),
  ),
  sort: Type.Optional(
    Type.Union(
      DIRECTORY_SORTS.map((sort) => Type.Literal(sort)),
      {
        default: 'price',
        description:
          'price is the monthly price (or monthly equivalent) in EUR, a spec key its normalized value, ' +
          'price_per_ram_gb, price_per_cpu_core and price_per_disk_gb that price in EUR per GB of RAM, per core, per GB of ' +
          'disk (price_per); products without one come last in both orders, and sold-out plans (stock 0) after all the others',
      },
    ),
  ),
  order: Type.Optional(
    Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
      description: 'default: asc for price, name and the prices per resource, desc for newest and the specs',
    }),
  ),
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
// UNPRICED_KEY (empty) marks the products without a price (or without the spec), which follow every other.
const NUMBER_OR_NONE = /^(\d{1,10}(\.\d{1,20})?)?$/;
const SORT_KEY_SHAPE: Record<DirectorySort, RegExp> = {
  price: NUMBER_OR_NONE,
  name: /^[^\u0000]{1,200}$/u,
  newest: PRODUCT_ID,
  ...(Object.fromEntries(NUMERIC_SPEC_KEYS.map((key) => [key, NUMBER_OR_NONE])) as Record<NumericSpec, RegExp>),
  ...(Object.fromEntries(PRICE_PER_SORTS.map((sort) => [sort, NUMBER_OR_NONE])) as Record<PricePerSort, RegExp>),
};

/** The fifth part of a cursor whose page ended among the sold-out plans, which follow every other. */
const SOLD_OUT_SEGMENT = 'sold_out';

export function encodeSearchCursor(sort: DirectorySort, order: SortOrder, next: Keyset | null): string | null {
  if (!next) return null;
  const parts = [sort, order, next.key, next.id, ...(next.soldOut === true ? [SOLD_OUT_SEGMENT] : [])];
  return Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');
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
  if (
    !Array.isArray(content) ||
    (content.length !== 4 && !(content.length === 5 && content[4] === SOLD_OUT_SEGMENT)) ||
    !content.every((part) => typeof part === 'string')
  ) {
    throw invalidCursor('pass next_cursor from a previous page unchanged');
  }
  const [cursorSort, cursorOrder, key, id] = content as [string, string, string, string];
  if (cursorSort !== sort || cursorOrder !== order) {
    throw invalidCursor(
      `the cursor belongs to sort=${cursorSort}&order=${cursorOrder}; keep the query of the first page`,
    );
  }
  if (!PRODUCT_ID.test(id) || !SORT_KEY_SHAPE[sort].test(key))
    throw invalidCursor('pass next_cursor from a previous page unchanged');
  return content.length === 5
    ? { key, id, soldOut: true }
    : ({ key, id } satisfies Omit<CursorContent, 'sort' | 'order'>);
}

/** Empty parameters (as an HTML form sends them) mean "no filter". */
export function given(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Cards and answers mark a price drop of the last this many days when no price_dropped_since is asked for. */
export const PRICE_DROP_DAYS = 30;

/** Whether a day is a real calendar day: "2026-02-30" passes the format but is not one. */
export function isCalendarDay(day: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) && new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) === day;
}

/**
 * Turns a checked query into a search. A maximum price is in the display currency (`prices`): compared with the
 * prices as sent when the search is within that one currency, else converted into EUR and compared with the EUR prices.
 */
export function toProductSearch(
  query: ProductSearchQuery,
  defaults: { limit?: number; staleAfterDays: number },
  prices: { currency: string; rates: RateTable } = { currency: BASE_CURRENCY, rates: new Map() },
): ProductSearch {
  const sort = query.sort ?? 'price';
  const order = query.order ?? DEFAULT_ORDER[sort];
  const currency = given(query.currency)?.toUpperCase();
  const country = given(query.country)?.toUpperCase();
  if (country !== undefined && !COUNTRY_LABELS.has(country)) {
    throw new Problem('VALIDATION_FAILED', `no datacenter location is known to be in country ${country}`, {
      errors: [{ parameter: 'country', code: 'enum', detail: `one of ${[...COUNTRY_LABELS.keys()].join(', ')}` }],
    });
  }
  const ranges = specRanges(query);
  const cursor = given(query.cursor);
  const droppedSince = given(query.price_dropped_since);
  if (droppedSince !== undefined && !isCalendarDay(droppedSince)) {
    throw new Problem('VALIDATION_FAILED', 'price_dropped_since is not a day', {
      errors: [
        {
          parameter: 'price_dropped_since',
          code: 'format',
          detail: 'a calendar day as YYYY-MM-DD, such as 2026-11-01',
        },
      ],
    });
  }
  const search: ProductSearch = {
    freshness: freshnessOf(defaults.staleAfterDays, query.include_stale === '1' || query.include_stale === 'true'),
    priceDrops:
      droppedSince === undefined
        ? { since: dayBefore(PRICE_DROP_DAYS), only: false }
        : { since: droppedSince, only: true },
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
  if (query.in_stock === '1' || query.in_stock === 'true') search.inStock = true;
  if (currency !== undefined) search.currency = currency;
  if (query.max_price !== undefined) {
    // The limit is in the display currency, which is `currency` unless another is asked for.
    const limitIn = given(query.display_currency)?.toUpperCase() ?? currency ?? prices.currency;
    if (limitIn === currency) {
      search.maxMonthlyPrice = query.max_price;
    } else {
      const rate =
        limitIn === BASE_CURRENCY ? 1 : limitIn === prices.currency ? prices.rates.get(limitIn)?.rate : undefined;
      if (rate === undefined) {
        throw new Problem('VALIDATION_FAILED', `no exchange rate for ${limitIn}`, {
          errors: [
            {
              parameter: 'display_currency',
              code: 'no_rate',
              detail: `max_price is in the display currency, ${limitIn}, which has no exchange rate`,
            },
          ],
        });
      }
      // Rounded up to the stored precision, so that a product priced exactly at the limit is in.
      search.maxBasePrice = Math.ceil((query.max_price / rate) * 1e6) / 1e6;
    }
  }
  if (country !== undefined) search.country = country;
  if (query.disk_type !== undefined) search.diskType = query.disk_type;
  if (ranges.length > 0) search.ranges = ranges;
  return search;
}

/** The spec ranges of a query; a minimum above its maximum is refused rather than answered with nothing. */
function specRanges(query: ProductSearchQuery): SpecRange[] {
  const ranges: SpecRange[] = [];
  const errors: { parameter: string; code: string; detail: string }[] = [];
  for (const key of NUMERIC_SPEC_KEYS) {
    const min = query[`min_${key}`];
    const max = query[`max_${key}`];
    if (min === undefined && max === undefined) continue;
    if (min !== undefined && max !== undefined && min > max) {
      errors.push({
        parameter: `min_${key}`,
        code: 'range',
        detail: `min_${key} (${min}) is more than max_${key} (${max})`,
      });
    }
    const range: SpecRange = { key };
    if (min !== undefined) range.min = min;
    if (max !== undefined) range.max = max;
    ranges.push(range);
  }
  if (errors.length > 0)
    throw new Problem('VALIDATION_FAILED', errors.map((error) => error.detail).join('; '), { errors });
  return ranges;
}
