// A page's query string read as filters, what is wrong with them, and the searches and links they make.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { isCurrencyCode } from '../catalog/currency.js';
import { COUNTRY_LABELS } from '../catalog/gazetteer.js';
import { DISK_TYPES, NUMERIC_SPEC_KEYS, NUMERIC_SPECS, SPEC_LABELS, type NumericSpec } from '../catalog/specs.js';
import type { ProductSearch } from '../store/directory/search.js';
import { PAGE_SORTS, pageSort, type PageFilters } from '../web/page-filters.js';
import { queryString } from '../web/pages.js';
import type { AppContext } from './context.js';
import { isCalendarDay, SPEC_RANGE_PARAMETERS, toProductSearch, type ProductSearchQuery } from './directory-query.js';
import type { PriceView } from './listed-prices.js';
import { notOneOf } from './problems.js';

const PAGE_SIZE = 24;

export type RawQuery = Record<string, unknown>;

/** Control characters (NUL, escape, C1 codes): never part of a filter, and never shown back on a page. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

export function text(query: RawQuery, name: string, maxLength = 200): string | undefined {
  const value = query[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.replace(CONTROL_CHARACTERS, ' ').trim();
  return trimmed && trimmed.length <= maxLength ? trimmed : undefined;
}

/** Parameters a page reads; anything else in its query (utm_…, a stray field) is no filter and is ignored. */
export const RANGE_PARAMETERS = new Set<string>(SPEC_RANGE_PARAMETERS);
const PAGE_PARAMETERS = new Set([
  'q',
  'category',
  'location',
  'feature',
  'country',
  'disk_type',
  'max_price',
  'currency',
  'display_currency',
  'period',
  'view',
  'sort',
  'cursor',
  'include_stale',
  'in_stock',
  'price_dropped_since',
]);

/**
 * What a form sent, with what is wrong with it: a value that makes no sense is shown back in the form and named
 * in a visible message, never silently dropped (the page then lists nothing rather than something else).
 */
export function filtersOf(
  query: RawQuery,
  fixed: { category?: string } = {},
): { filters: PageFilters; problems: string[] } {
  const problems: string[] = [];
  const sort = text(query, 'sort');
  const filters: PageFilters = { sort: sort ?? 'price' };
  if (sort !== undefined && pageSort(sort) === null) problems.push(`Sort: ${notOneOf(sort, PAGE_SORT_VALUES)}.`);
  const q = text(query, 'q');
  const category = fixed.category ?? text(query, 'category', 64);
  const location = text(query, 'location');
  const feature = text(query, 'feature');
  const country = text(query, 'country', 200);
  const diskType = text(query, 'disk_type', 200);
  const maxPrice = text(query, 'max_price', 200);
  const currency = text(query, 'currency', 200);
  const view = text(query, 'view', 200);
  const display = text(query, 'display_currency', 200);
  const period = text(query, 'period', 200);
  if (q) filters.q = q;
  if (category) filters.category = category;
  if (location) filters.location = location;
  if (feature) filters.feature = feature;
  if (country) {
    filters.country = country.toUpperCase();
    if (!/^[A-Za-z]{2}$/.test(country) || !COUNTRY_LABELS.has(country.toUpperCase()))
      problems.push(`Country “${country}” is not a country code the directory knows (such as DE, NL or US).`);
  }
  if (diskType) {
    filters.disk_type = diskType;
    if (!(DISK_TYPES as readonly string[]).includes(diskType))
      problems.push(`Disk type: ${notOneOf(diskType, DISK_TYPES)}.`);
  }
  if (maxPrice) {
    filters.max_price = maxPrice;
    if (!/^\d{1,9}(\.\d{1,4})?$/.test(maxPrice))
      problems.push(`Max. per month “${maxPrice}” is not a price (such as 10 or 4.99).`);
  }
  if (currency) {
    filters.currency = currency.toUpperCase();
    if (!isCurrencyCode(currency)) problems.push(`Currency “${currency}” is not an ISO 4217 code.`);
  }
  if (display) {
    filters.display_currency = display.toUpperCase();
    if (!isCurrencyCode(display)) problems.push(`Show prices in “${display}” is not an ISO 4217 code.`);
  }
  if (period) {
    if (period === 'year') filters.period = 'year';
    else if (period !== 'month') problems.push(`Prices per: ${notOneOf(period, ['month', 'year'])}.`);
  }
  if (view) {
    if (view === 'table') filters.view = 'table';
    else if (view !== 'cards') problems.push(`View: ${notOneOf(view, ['cards', 'table'])}.`);
  }
  const dropped = text(query, 'price_dropped_since', 200);
  if (dropped) {
    filters.price_dropped_since = dropped;
    if (!isCalendarDay(dropped)) problems.push(`Price dropped since “${dropped}” is not a day (such as 2026-11-01).`);
  }
  if (text(query, 'include_stale', 200) === '1') filters.include_stale = true;
  const inStock = text(query, 'in_stock', 200);
  if (inStock === '1' || inStock === 'true') filters.in_stock = true;
  else if (inStock !== undefined && inStock !== '0' && inStock !== 'false')
    problems.push(`In stock only: ${notOneOf(inStock, ['1', '0', 'true', 'false'])}.`);
  for (const name of Object.keys(query)) {
    if (!RANGE_PARAMETERS.has(name)) continue;
    const value = text(query, name, 200);
    if (!value) continue;
    (filters.ranges ??= {})[name] = value;
    if (!/^\d{1,10}(\.\d{1,4})?$/.test(value)) problems.push(`${rangeLabel(name)} “${value}” is not a number.`);
  }
  for (const [name, value] of Object.entries(query)) {
    if (!PAGE_PARAMETERS.has(name) && !RANGE_PARAMETERS.has(name)) continue;
    if (typeof value === 'string' && value.trim().length > (name === 'category' ? 64 : name === 'cursor' ? 500 : 200))
      problems.push(`The ${name} parameter is too long.`);
    if (Array.isArray(value)) problems.push(`The ${name} parameter is given more than once.`);
  }
  return { filters, problems };
}

/** The sorts a page takes: its own, and each numeric spec's, lowest or highest first (the table's headers). */
const PAGE_SORT_VALUES = [
  ...Object.keys(PAGE_SORTS),
  ...NUMERIC_SPEC_KEYS.flatMap((key) => [`${key}_asc`, `${key}_desc`]),
];

/** "RAM (GB) at least" for min_ram_gb. */
export function rangeLabel(parameter: string): string {
  const key = parameter.slice(4) as NumericSpec;
  const unit = NUMERIC_SPECS[key].unit ? ` (${NUMERIC_SPECS[key].unit})` : '';
  return `${SPEC_LABELS[key]}${unit} ${parameter.startsWith('min_') ? 'at least' : 'at most'}`;
}

export function searchOf(
  filters: PageFilters,
  cursor: string | undefined,
  staleAfterDays: number,
  view: PriceView,
  host?: string,
): ProductSearch {
  const { sort, order } = pageSort(filters.sort) ?? PAGE_SORTS.price;
  const ranges = Object.fromEntries(Object.entries(filters.ranges ?? {}).map(([name, value]) => [name, Number(value)]));
  return toProductSearch(
    {
      ...ranges,
      q: filters.q,
      category: filters.category,
      location: filters.location,
      feature: filters.feature,
      country: filters.country,
      disk_type: filters.disk_type as ProductSearchQuery['disk_type'],
      host,
      max_price: filters.max_price === undefined ? undefined : Number(filters.max_price),
      // Only plans priced in this currency; the price limit is in the display currency.
      currency: filters.currency,
      sort,
      order,
      cursor,
      limit: PAGE_SIZE,
      // A provider's own page lists its plans, stale or not, and says which.
      include_stale: filters.include_stale || host !== undefined ? '1' : undefined,
      in_stock: filters.in_stock ? '1' : undefined,
      price_dropped_since: filters.price_dropped_since,
    },
    { limit: PAGE_SIZE, staleAfterDays },
    view,
  );
}

/** The same search as the feed and the export take it: the JSON API's parameters. */
function apiQuery(filters: PageFilters, host?: string): string {
  const { sort, order } = pageSort(filters.sort) ?? PAGE_SORTS.price;
  return queryString({
    q: filters.q,
    category: filters.category,
    location: filters.location,
    feature: filters.feature,
    country: filters.country,
    disk_type: filters.disk_type,
    ...filters.ranges,
    host,
    max_price: filters.max_price,
    currency: filters.max_price === undefined ? undefined : (filters.currency ?? 'USD'),
    include_stale: filters.include_stale || host !== undefined ? '1' : undefined,
    in_stock: filters.in_stock ? '1' : undefined,
    price_dropped_since: filters.price_dropped_since,
    sort: sort === 'price' ? undefined : sort,
    // Only an order other than the sort's own default (ascending for price and name, else descending).
    order: order === (sort === 'price' || sort === 'name' ? 'asc' : 'desc') ? undefined : order,
  });
}

export function takeAwayLinks(filters: PageFilters, host?: string): { feedHref: string; csvHref: string } {
  // The feed is ordered by time: the sort is the export's only.
  const { sort: _sort, ...unsorted } = filters;
  return {
    feedHref: `/api/v1/directory/feed.atom${apiQuery({ ...unsorted, sort: 'price' }, host)}`,
    csvHref: `/api/v1/directory/export.csv${apiQuery(filters, host)}`,
  };
}

export function filterParams(filters: PageFilters, withCategory: boolean): Record<string, string | undefined> {
  return {
    q: filters.q,
    category: withCategory ? filters.category : undefined,
    location: filters.location,
    feature: filters.feature,
    country: filters.country,
    disk_type: filters.disk_type,
    ...filters.ranges,
    max_price: filters.max_price,
    currency: filters.currency,
    display_currency: filters.display_currency,
    period: filters.period,
    include_stale: filters.include_stale ? '1' : undefined,
    in_stock: filters.in_stock ? '1' : undefined,
    price_dropped_since: filters.price_dropped_since,
    view: filters.view,
    sort: filters.sort === 'price' ? undefined : filters.sort,
  };
}

/**
 * The filters that choose what a page lists; the sort, the cursor, how prices are shown (display currency, period)
 * and anything else do not make another page.
 */
export function canonicalParams(filters: PageFilters, withCategory: boolean): Record<string, string | undefined> {
  const { sort: _sort, display_currency: _display, period: _period, ...chosen } = filterParams(filters, withCategory);
  return chosen;
}

/** What a form sends for a select left at its first choice: no filter, the same as leaving the parameter out. */
const FORM_DEFAULTS = new Map([
  ['sort', 'price'],
  ['period', 'month'],
  ['view', 'cards'],
]);

/**
 * A page's query as its own links write it: without the parameters a form sends empty, nor those it sends at their
 * default (sort=price, period=month, view=cards, and display_currency when it is the server's default and no
 * currency filter would pick another). Null when the query is already so.
 */
export function canonicalQuery(search: string, defaultDisplay: string): string | null {
  const given = new URLSearchParams(search);
  const currencyFiltered = given.getAll('currency').some((value) => value.trim() !== '');
  const kept = new URLSearchParams();
  let dropped = false;
  for (const [name, value] of given) {
    const bare = value.replace(CONTROL_CHARACTERS, ' ').trim();
    const unset =
      bare === '' ||
      FORM_DEFAULTS.get(name) === bare ||
      (name === 'display_currency' && !currencyFiltered && bare.toUpperCase() === defaultDisplay);
    if (unset) dropped = true;
    else kept.append(name, value);
  }
  return dropped ? kept.toString() : null;
}

/**
 * A page asked for with empty or default parameters (as a form without script sends every field) is redirected to
 * the same page without them: its address then carries only the filters set. 302: the server's default display
 * currency is a setting, and may change.
 */
export function redirectToCanonical(context: AppContext) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const mark = request.url.indexOf('?');
    if (mark < 0) return undefined;
    const canonical = canonicalQuery(request.url.slice(mark + 1), context.config.displayCurrency);
    if (canonical === null) return undefined;
    return reply.redirect(`${request.url.slice(0, mark)}${canonical ? `?${canonical}` : ''}`, 302);
  };
}
