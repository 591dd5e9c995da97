// The public directory: what people browsing hosts see. Only active products of active hosts ever leave here.
import { facet } from '../catalog/derived.js';
import { COUNTRY_LABELS, placeOf } from '../catalog/gazetteer.js';
import type { Content } from '../catalog/product-fields.js';
import { NUMERIC_SPEC_KEYS, type ComparableSpecs, type DiskType, type NumericSpec } from '../catalog/specs.js';
import { searchTerms, searchWords, termQuery, type SearchTerm } from '../catalog/search-terms.js';
import { listCategories, type Category } from './categories.js';
import { keptPriceContext, RATES_VERSION, renewPriceContext, type PriceContext } from './rates.js';
import type { Queryable } from './db.js';
import { isStale, type Freshness } from './freshness.js';
import { droppedSince, monthlyPriceSince } from './price-history.js';
import { contentOfRow, SELECT_CONTENT } from './product-columns.js';
import { expandOrderUrl } from '../catalog/host-profile.js';
import { PUBLIC_PROFILE_COLUMNS, publicProfileOf, type HostProfile } from './hosts.js';
import { iso, isoOrNull, numberOrNull } from './rows.js';

export type { Freshness } from './freshness.js';

export type DirectorySort = 'price' | 'newest' | 'name' | NumericSpec;

/** A range of one normalized spec: products without the spec are left out. */
export interface SpecRange {
  key: NumericSpec;
  min?: number;
  max?: number;
}
export type SortOrder = 'asc' | 'desc';

/** Where the previous page ended: its last row's sort key and id. */
export interface Keyset {
  key: string;
  id: string;
}

export interface ProductSearch {
  text?: string;
  category?: string;
  /** a location as a visitor types it: a city of the gazetteer by any of its names, a country, or a location as listed (case and spacing ignored) */
  location?: string;
  /** a feature as listed, case and spacing ignored */
  feature?: string;
  /** ISO 3166-1 alpha-2, upper case */
  country?: string;
  ranges?: SpecRange[];
  diskType?: DiskType;
  /** only products priced in this currency; a price sort then orders by the prices as sent, not converted */
  currency?: string;
  /** monthly price at most this, in `currency` (compared as sent, unconverted); excludes unpriced products */
  maxMonthlyPrice?: number;
  /** monthly price (or its monthly equivalent) in EUR at most this; excludes products without a EUR price */
  maxBasePrice?: number;
  hostSlug?: string;
  /** when hosts turn stale, and whether stale hosts' products are listed too */
  freshness: Freshness;
  /** only products whose monthly price dropped since this UTC day (YYYY-MM-DD), else the day cards mark drops since */
  priceDrops: { since: string; only: boolean };
  sort: DirectorySort;
  order: SortOrder;
  limit: number;
  after: Keyset | null;
}

export interface ListedHostRef {
  slug: string;
  name: string;
}

/** Where a datacenter location is, by the gazetteer: null city and country for a location it does not know. */
export interface ListedPlace {
  location: string;
  city: string | null;
  country: string | null;
}

/** A product as the public sees it: its content without the host's own external_id. */
export interface ListedProduct extends Content {
  id: string;
  /** the specs read as the vocabulary of the category's family (catalog/specs.ts) */
  comparable_specs: ComparableSpecs;
  places: ListedPlace[];
  /** the monthly pricing tier if the product has one, else price; null when it has neither ("price on request") */
  monthly_price: number | null;
  /** the price per month, or its equivalent for a plan sold by longer periods (catalog/true-cost.ts); null if none */
  monthly_equivalent: number | null;
  /** monthly_equivalent in EUR; null when there is none, or no exchange rate for the product's currency */
  base_monthly_price: number | null;
  /** the host's order link for this product, when the host has a template; else null */
  order_url: string | null;
  created_at: string;
  updated_at: string;
  host: ListedHostRef;
  /** the host's last applied sync: when its billing system last confirmed this product; null if never */
  confirmed_at: string | null;
  /** the host's confirmation is older than STALE_AFTER_DAYS, or it never synced */
  stale: boolean;
  /** the monthly price is lower than it was on `since`, which it was at */
  price_drop: { since: string; previous_monthly_price: number } | null;
}

export interface ListedHost extends HostProfile {
  slug: string;
  name: string;
  default_currency: string;
  product_count: number;
  created_at: string;
  last_synced_at: string | null;
  /** the last applied sync (the same as last_synced_at) */
  confirmed_at: string | null;
  stale: boolean;
}

export interface ListedCategory {
  slug: string;
  label: string;
  /** listed products, counted up to CATEGORY_COUNT_CAP */
  product_count: number;
}

/** Counting every product of a large category on each home page view would cost more than the number is worth. */
export const CATEGORY_COUNT_CAP = 1000;

/**
 * Figures beside the listing that are approximate by design (category counts capped at CATEGORY_COUNT_CAP, filter
 * choices read from a sample, which words are common by the last ANALYZE) cost far more to compute than to show: at a
 * million products, tens of milliseconds to seconds. Each is kept per database for `ttlMs` and computed again by one
 * caller while the others get the value it replaces; the first caller waits. The products listed are never kept.
 */
const recent = new WeakMap<Queryable, Map<string, { at: number; value: Promise<unknown> }>>();

/**
 * The most figures kept per database. Keys come from requests (the words of a search, a search's filters): without a
 * bound, a client sending ever new words would grow the process without end. The oldest go first.
 */
const KEPT_FIGURES_MAX = 10_000;

/** The figures kept for `db`, with room for one more. */
function keptFigures<V>(store: WeakMap<Queryable, Map<string, V>>, db: Queryable): Map<string, V> {
  let entries = store.get(db);
  if (!entries) store.set(db, (entries = new Map()));
  while (entries.size >= KEPT_FIGURES_MAX) entries.delete(entries.keys().next().value!);
  return entries;
}

function recently<T>(db: Queryable, key: string, ttlMs: number, compute: () => Promise<T>): Promise<T> {
  const entries = keptFigures(recent, db);
  const kept = entries.get(key);
  const now = performance.now();
  if (kept && now - kept.at < ttlMs) return kept.value as Promise<T>;
  const value = compute();
  if (!kept) {
    // The first value: every caller waits for it; should it fail, the next caller computes again.
    entries.set(key, { at: now, value });
    value.catch(() => entries.delete(key));
    return value;
  }
  // A value to replace: served until the new one is known (a failure keeps it for another ttlMs).
  kept.at = now;
  value.then(
    () => entries.set(key, { at: now, value }),
    () => {},
  );
  return kept.value as Promise<T>;
}

/** How long counts and filter choices are kept: the shared cache's s-maxage, within the freshness promise. */
const LISTING_FIGURES_TTL_MS = 5_000;
/** Word statistics change only with ANALYZE. */
const WORD_STATISTICS_TTL_MS = 60_000;

/** The columns of a listed product; `since` is the SQL of the day price drops are shown since. */
export const productColumns = (since: string) => `p.id, ${SELECT_CONTENT}, p.spec_values, p.monthly_price::float8 AS monthly_price,
  p.monthly_equivalent::float8 AS monthly_equivalent, p.base_monthly_price::float8 AS base_monthly_price, p.created_at,
  p.updated_at, h.slug AS host_slug, h.name AS host_name, h.confirmed_at, h.order_url_template, p.external_id,
  ${since}::text AS drop_since, ${monthlyPriceSince(since)}::float8 AS price_then`;

/** A normalized spec as SQL: a number, or null for a product whose specs do not give it. */
export const specExpression = (key: NumericSpec) => `((p.spec_values ->> '${key}')::numeric)`;

function specSortKey(key: NumericSpec): { expression: string; unindexed: string; cast: string } {
  return { expression: specExpression(key), unindexed: `(${specExpression(key)} + 0)`, cast: '::numeric' };
}

/**
 * The sort key of each sort: as SQL, the same order through an expression no index covers, and the cast of
 * the text a cursor carries.
 */
const SORT_KEY: Record<DirectorySort, { expression: string; unindexed: string; cast: string }> = {
  price: { expression: 'p.base_monthly_price', unindexed: '(p.base_monthly_price + 0)', cast: '::numeric' },
  name: { expression: 'lower(p.name) COLLATE "C"', unindexed: `(lower(p.name) || '') COLLATE "C"`, cast: '::text COLLATE "C"' },
  newest: { expression: 'p.id', unindexed: `(p.id || '')`, cast: '::text' },
  ...(Object.fromEntries(NUMERIC_SPEC_KEYS.map((key) => [key, specSortKey(key)])) as Record<NumericSpec, { expression: string; unindexed: string; cast: string }>),
};

/** The sort keys of the specs. */
const SPEC_SORT_KEYS: ReadonlySet<SortKey> = new Set(NUMERIC_SPEC_KEYS.map((key) => SORT_KEY[key]));

/** Sorts whose key some products lack (no price, no such spec): those follow the others, in a segment of their own. */
function segmented(sort: DirectorySort): boolean {
  return sort !== 'name' && sort !== 'newest';
}

function placesOf(locations: readonly string[] | null): ListedPlace[] {
  return (locations ?? []).map((location) => {
    const place = placeOf(location);
    return { location, city: place?.city ?? null, country: place?.country ?? null };
  });
}

export function toListedProduct(row: Record<string, unknown>, freshness: Freshness): ListedProduct {
  const confirmedAt = isoOrNull(row.confirmed_at);
  const monthly = numberOrNull(row.monthly_price);
  const then = numberOrNull(row.price_then);
  return {
    id: String(row.id),
    ...contentOfRow(row),
    comparable_specs: (row.spec_values ?? {}) as ComparableSpecs,
    places: placesOf(row.datacenter_locations as string[] | null),
    monthly_price: monthly,
    monthly_equivalent: numberOrNull(row.monthly_equivalent),
    base_monthly_price: numberOrNull(row.base_monthly_price),
    order_url: typeof row.order_url_template === 'string' ? expandOrderUrl(row.order_url_template, String(row.external_id)) : null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    host: { slug: String(row.host_slug), name: String(row.host_name) },
    confirmed_at: confirmedAt,
    stale: isStale(confirmedAt, freshness),
    price_drop: monthly !== null && then !== null && then > monthly ? { since: String(row.drop_since), previous_monthly_price: then } : null,
  };
}

/**
 * The sort key a cursor carries for a product without a monthly price. Sorted by price, such products come after
 * every priced one in both orders, by id in the order's direction: a separate segment of the listing.
 */
const UNPRICED_KEY = '';

/** The WHERE clause of a search as it grows, with its parameters. */
export class Conditions {
  readonly where: string[] = [`p.status = 'active'`, `h.status = 'active'`];
  /**
   * Those of `where` a listing's sort index serves by itself (status, category, a segment's null key, the cursor): all
   * a bounded walk of it reads by (readPage), the other conditions filtering what it walked.
   */
  readonly walk: string[] = [`p.status = 'active'`];
  readonly params: unknown[] = [];
  /**
   * Whether the values decide the best plan: words, facets, spec ranges, a currency or a price limit match anything
   * from a handful of rows to most of them. Without them (a category's or a host's listing, in any sort, on any page)
   * one sort index serves every value, and the statement is kept prepared (planning cost more than running it).
   */
  valuesSteerPlan = false;
  /**
   * The words whose statistics decide whether the text index leads (searchProducts): the plain words and the sizes'
   * tokens. A size is as common as its token (its number alone is common, its unit may be in no product's words); a
   * place is matched by its facet too, whose statistics the planner has.
   */
  wordsDecidingPlan: string[] = [];
  #dropsSince = '';
  #sinceParam: string | null = null;

  /** The day price drops are shown since (YYYY-MM-DD); a parameter only once a statement refers to it. */
  set dropsSince(day: string) {
    this.#dropsSince = day;
    this.#sinceParam = null;
  }

  /** The parameter of the day price drops are shown since. */
  get since(): string {
    return (this.#sinceParam ??= this.param(this.#dropsSince));
  }

  /** A condition the sort index serves by itself: in `where`, and in what a bounded walk reads by. */
  served(condition: string): void {
    this.where.push(condition);
    this.walk.push(condition);
  }

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  copy(): Conditions {
    const copy = new Conditions();
    copy.where.splice(0, copy.where.length, ...this.where);
    copy.walk.splice(0, copy.walk.length, ...this.walk);
    copy.params.push(...this.params);
    copy.#dropsSince = this.#dropsSince;
    copy.#sinceParam = this.#sinceParam;
    copy.valuesSteerPlan = this.valuesSteerPlan;
    copy.wordsDecidingPlan = this.wordsDecidingPlan;
    return copy;
  }
}

/**
 * The WHERE clause of a search's filters (freshness and price drops included); null when it can match nothing (a text
 * of only punctuation).
 */
export async function conditionsOf(db: Queryable, search: Omit<ProductSearch, 'sort' | 'order' | 'limit' | 'after'>): Promise<Conditions | null> {
  const filters = new Conditions();
  const { where } = filters;
  if (search.category !== undefined) filters.served(`p.category = ${filters.param(search.category)}`);
  // The host's id, not its slug, is what the products' host indexes lead with: read once, before the walk (a
  // condition on the joined host's slug left PostgreSQL to sort the host's products after the join).
  if (search.hostSlug !== undefined) where.push(`p.host_id = (SELECT id FROM hosts WHERE slug = ${filters.param(search.hostSlug)})`);
  const facets = facetsOf(search);
  if (facets.length > 0) where.push(`p.facets @> ${filters.param(JSON.stringify(facets))}::jsonb`);
  for (const range of search.ranges ?? []) {
    if (range.min !== undefined) where.push(`${specExpression(range.key)} >= ${filters.param(String(range.min))}::numeric`);
    if (range.max !== undefined) where.push(`${specExpression(range.key)} <= ${filters.param(String(range.max))}::numeric`);
  }
  if (search.diskType !== undefined) where.push(`p.spec_values ->> 'disk_type' = ${filters.param(search.diskType)}`);
  if (search.currency !== undefined) where.push(`p.currency = ${filters.param(search.currency)}`);
  if (search.maxMonthlyPrice !== undefined) where.push(`p.monthly_price <= ${filters.param(String(search.maxMonthlyPrice))}::numeric`);
  if (search.maxBasePrice !== undefined) where.push(`p.base_monthly_price <= ${filters.param(String(search.maxBasePrice))}::numeric`);
  if (!search.freshness.includeStale) where.push(confirmedWithin(search.freshness, filters));
  filters.dropsSince = search.priceDrops.since;
  if (search.priceDrops.only) where.push(droppedSince(filters.since));
  if (search.text !== undefined) {
    const terms = searchTerms(search.text);
    if (terms.length === 0) return null;
    await matchTerms(db, filters, terms);
    filters.wordsDecidingPlan = terms.flatMap((term) => (term.facet !== undefined ? [] : term.token !== undefined ? [term.token] : term.words));
  }
  filters.valuesSteerPlan = where.length > plainConditions(search);
  return filters;
}

/**
 * Confirmed within the freshness limit. The limit is written as the database's clock less the configuration's age in
 * seconds: the same text on every request, which PostgreSQL can estimate in a plan kept for every value.
 */
function confirmedWithin(freshness: Freshness, filters: Conditions): string {
  const seconds = freshness.staleAfterDays * 86_400;
  return Number.isFinite(seconds)
    ? `h.confirmed_at >= now() - interval '${seconds} seconds'`
    : `h.confirmed_at >= ${filters.param(freshness.staleBefore.toISOString())}::timestamptz`;
}

/** How many conditions a search has that leave the plan to the sort index: status, category, host and freshness. */
function plainConditions(search: Omit<ProductSearch, 'sort' | 'order' | 'limit' | 'after'>): number {
  return 2 + Number(search.category !== undefined) + Number(search.hostSlug !== undefined) + Number(!search.freshness.includeStale);
}

/**
 * One page of listed products matching every given filter, in (sort key, id) order; `after` continues where
 * the previous page ended, so pages never overlap or skip a row even while the order has ties.
 */
export async function searchProducts(
  db: Queryable,
  search: ProductSearch,
  options: { ratesVersion?: boolean } = {},
): Promise<{ products: ListedProduct[]; next: Keyset | null; ratesVersion?: string }> {
  const filters = await conditionsOf(db, search);
  // A query of only punctuation matches nothing rather than everything.
  if (filters === null) return { products: [], next: null };
  // The rates' version rides along with the first rows read (a page with none reads no version).
  const version: VersionRead = { wanted: options.ratesVersion === true };
  // A host's listing is read by the host and sorted (unless in id order or by its base price, which indexes of the
  // host's serve), and a spec sort no index serves sorts every product with the spec: the page is chosen among narrow
  // rows, and only the page's rows are read whole (a spec sort across a million products: about half the CPU, and
  // PostgreSQL may share the scan among its workers). Elsewhere a sort index is walked, or a text search's few matches
  // sorted, where reading the page's rows a second time would cost more than it saves.
  const pageOf = async (conditions: Conditions, key: SortKey, page: Pick<ProductSearch, 'order' | 'limit'>, textLeads: boolean, after: Keyset | null) => {
    const hostSorts = search.hostSlug !== undefined && !hostIndexed(key, textLeads);
    const how = { textLeads, narrow: hostSorts || !specIndexed(key, search) };
    if (textLeads || search.hostSlug !== undefined || words.length === 0 || !walkIndexed(key, search)) {
      return readPage(db, conditions, key, page, how, after, version);
    }
    // Words each common may still be rare together ("ryzen xeon": a tenth of the products each, none both), and the
    // statistics cannot tell: the sort index is walked for at most the rows a page of matches as common as a common
    // word would fill, and a page not filled within them is read again with the words leading. Both are exact.
    const walked = await readPage(db, conditions.copy(), key, page, { ...how, walkAtMost: walkBound(page.limit) }, after, version);
    return walked.more ? walked : readPage(db, conditions, key, page, { ...how, textLeads: true }, after, version);
  };
  const pageResult = (rows: Record<string, unknown>[], more: boolean, freshness: Freshness) => ({ ...resultOf(rows, more, freshness), ...version.read });
  // PostgreSQL guesses that a word it has no statistics for matches 0.5 % of the rows, and then walks the sort
  // index looking for it: for a rare word that reads the whole listing. Unless every word is known to be common,
  // the sort is put on an expression no index covers (same values, same order), so that the text index leads
  // and only the matches are sorted. Common words keep the walk, which finds a page of them in a few rows.
  const words = filters.wordsDecidingPlan;
  const textLeads = words.length > 0 && !(await wordsAreCommon(db, words));
  if (!segmented(search.sort)) {
    const page = await pageOf(filters, SORT_KEY[search.sort], search, textLeads, search.after);
    return pageResult(page.rows, page.more, search.freshness);
  }

  // Priced products first, then (unless a price limit leaves them out) the unpriced ones: two index walks in the
  // same direction, where one ORDER BY ... NULLS LAST would need an index per order. A spec sort is the same, with
  // the products that do not give the spec as its second segment. Across currencies the price is the EUR one, and a
  // product without it (no rate for its currency, or no price) is in the second segment; within one currency
  // (`currency`), the monthly price as sent.
  const key = search.sort === 'price' && search.currency !== undefined ? NATIVE_PRICE_KEY : SORT_KEY[search.sort];
  const excludesUnknown =
    search.sort === 'price'
      ? search.maxMonthlyPrice !== undefined || search.maxBasePrice !== undefined
      : (search.ranges ?? []).some((range) => range.key === search.sort);
  const inUnpriced = search.after !== null && search.after.key === UNPRICED_KEY;
  let priced: { rows: Record<string, unknown>[]; more: boolean } = { rows: [], more: false };
  if (!inUnpriced) {
    const pricedOnly = filters.copy();
    pricedOnly.served(`${key.expression} IS NOT NULL`);
    priced = await pageOf(pricedOnly, key, search, textLeads, search.after);
    // A price drop needs a price: sorted by the prices as sent, the unpriced segment has none (sorted by the EUR
    // prices, it also holds the priced products whose currency has no rate).
    const noneUnpriced = search.sort === 'price' && search.priceDrops.only && key === NATIVE_PRICE_KEY;
    if (priced.more || excludesUnknown || noneUnpriced) return pageResult(priced.rows, priced.more, search.freshness);
  }
  const unpricedOnly = filters.copy();
  unpricedOnly.served(`${key.expression} IS NULL`);
  const rest = { ...search, limit: search.limit - priced.rows.length };
  const unpriced = await pageOf(unpricedOnly, UNPRICED_SORT_KEY, rest, textLeads, inUnpriced ? search.after : null);
  return pageResult([...priced.rows, ...unpriced.rows], unpriced.more, search.freshness);
}

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

/** The monthly price as sent, for a price sort within one currency. */
const NATIVE_PRICE_KEY = { expression: 'p.monthly_price', unindexed: '(p.monthly_price + 0)', cast: '::numeric' };

/** The facets a search's location, country and feature filters look for (catalog/derived.ts). */
function facetsOf(search: Pick<ProductSearch, 'location' | 'feature' | 'country'>): string[] {
  const facets: string[] = [];
  if (search.location !== undefined) {
    const place = placeOf(search.location);
    facets.push(place === null ? facet.location(search.location) : place.city === null ? facet.country(place.country) : facet.place(place.key));
  }
  if (search.country !== undefined) facets.push(facet.country(search.country));
  if (search.feature !== undefined) facets.push(facet.feature(search.feature));
  return facets;
}

/**
 * Each term (catalog/search-terms.ts) must match the product's own words (name, description, features, locations,
 * specs: search_text) or facets, or, a word alone, its provider's name or its category's label. Provider names and
 * labels are read from their tables (kept LISTING_FIGURES_TTL_MS), never copied into the products: renaming a
 * provider changes what finds it at once.
 */
async function matchTerms(db: Queryable, filters: Conditions, terms: SearchTerm[]): Promise<void> {
  const names = await namedWords(db);
  for (const term of terms) {
    const alternatives = [`p.search_text @@ to_tsquery('simple', ${filters.param(termQuery(term))})`];
    if (term.facet !== undefined) alternatives.push(`p.facets @> ${filters.param(JSON.stringify([term.facet]))}::jsonb`);
    if (term.words.length === 1 && term.token === undefined) {
      const { hosts, categories } = namesMatching(names, term.words[0]!);
      if (hosts.length > 0) alternatives.push(`p.host_id = ANY (${filters.param(hosts)}::bigint[])`);
      if (categories.length > 0) alternatives.push(`p.category = ANY (${filters.param(categories)}::text[])`);
    }
    filters.where.push(alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' OR ')})`);
  }
}

interface NamedWords {
  hosts: { id: string; words: string[] }[];
  categories: { slug: string; words: string[] }[];
  /** what each word asked for so far matches among them (kept with them, at most NAMED_MATCHES_MAX words) */
  matched: Map<string, { hosts: string[]; categories: string[] }>;
}

/** Words whose matches are kept with the names: a visitor's words come back, and a thousand names are walked each. */
const NAMED_MATCHES_MAX = 1_000;

/** The providers and categories one of whose words starts with `word`. */
function namesMatching(names: NamedWords, word: string): { hosts: string[]; categories: string[] } {
  let found = names.matched.get(word);
  if (found === undefined) {
    const matches = (parts: readonly string[]) => parts.some((part) => part.startsWith(word));
    found = {
      hosts: names.hosts.filter((host) => matches(host.words)).map((host) => host.id),
      categories: names.categories.filter((category) => matches(category.words)).map((category) => category.slug),
    };
    if (names.matched.size >= NAMED_MATCHES_MAX) names.matched.clear();
    names.matched.set(word, found);
  }
  return found;
}

function namedWords(db: Queryable): Promise<NamedWords> {
  return recently(db, 'named-words', LISTING_FIGURES_TTL_MS, async () => {
    const [hosts, categories] = await Promise.all([
      db.query<{ id: string; name: string }>(`SELECT id::text AS id, name FROM hosts WHERE status = 'active'`),
      db.query<{ slug: string; label: string }>('SELECT slug, label FROM categories'),
    ]);
    return {
      hosts: hosts.rows.map((row) => ({ id: row.id, words: searchWords(row.name) })),
      categories: categories.rows.map((row) => ({ slug: row.slug, words: searchWords(`${row.label} ${row.slug.replaceAll('_', ' ')}`) })),
      matched: new Map(),
    };
  });
}

/** Searches found to match more than a count's cap, by their conditions, with when that was counted. */
const broadSearches = new WeakMap<Queryable, Map<string, number>>();

/**
 * The terms of a search, each as its words, split into those that match nothing on their own within its other filters
 * (what a page that found nothing can name: "no plan here matches “cheap”") and the others. Asked only of a search
 * that found nothing; with two terms or more, each term is one count of at most one.
 */
export async function termsMatchingNothing(db: Queryable, search: ProductSearch): Promise<{ unmatched: string[]; matched: string[] }> {
  const typed = searchTerms(search.text ?? '').map((term) => term.words.join(' '));
  if (typed.length < 2) return { unmatched: [], matched: typed };
  const counted = await Promise.all(typed.map((text) => countProducts(db, { ...search, text, after: null }, 1)));
  return { unmatched: typed.filter((_, at) => counted[at]!.count === 0), matched: typed.filter((_, at) => counted[at]!.count > 0) };
}

/**
 * How many products match a search, counted up to `cap`: the exact number, or `more` when there are more than
 * `cap` (counting every match of a broad search at a million products would cost more than it tells). That a search
 * matches more than `cap` is kept LISTING_FIGURES_TTL_MS, like the other figures beside the listing: a broad listing
 * is the most visited and the dearest to count, and "more than 1 000" holds for seconds. Once that time is up, one
 * caller counts again while the others say what was counted last. A smaller count is always counted afresh.
 */
export async function countProducts(db: Queryable, search: ProductSearch, cap: number): Promise<{ count: number; more: boolean }> {
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
    // Counted again by this caller; the others, meanwhile, say what was counted last (as `recently` does).
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

/** Unpriced products, sorted by price, are in id order with the cursor key UNPRICED_KEY. */
const UNPRICED_SORT_KEY = { expression: 'p.id', unindexed: `(p.id || '')`, cast: '::text', key: `''` };

type SortKey = { expression: string; unindexed: string; cast: string; key?: string };

/** Whether a search reads the rates' version with its rows, and the one it read. */
interface VersionRead {
  wanted: boolean;
  read?: { ratesVersion: string };
}

/**
 * Up to `limit` rows (and whether there are more) of one segment of the listing, in (sort key, id) order. A limit
 * of 0 only tells whether the segment has a row. Until the rates' version is read, it is asked for when `version` wants it.
 * `textLeads`: sorted on an expression no index covers (see searchProducts); `narrow`: the page is chosen among the
 * matches' ids and sort keys, and then its rows are read whole, so that sorting many matches moves narrow rows.
 */
async function readPage(
  db: Queryable,
  conditions: Conditions,
  key: SortKey,
  search: Pick<ProductSearch, 'order' | 'limit'>,
  how: { textLeads: boolean; narrow: boolean; walkAtMost?: number },
  after: Keyset | null,
  version: VersionRead,
): Promise<{ rows: Record<string, unknown>[]; more: boolean }> {
  const direction = search.order === 'asc' ? 'ASC' : 'DESC';
  const where = [...conditions.where];
  const walk = [...conditions.walk];
  if (after !== null) {
    const comparison = search.order === 'asc' ? '>' : '<';
    const cursor =
      key.key === undefined
        ? `(${key.expression}, p.id) ${comparison} (${conditions.param(after.key)}${key.cast}, ${conditions.param(after.id)}::text)`
        : `p.id ${comparison} ${conditions.param(after.id)}::text`;
    where.push(cursor);
    walk.push(cursor);
  }
  const withVersion = version.wanted && version.read === undefined;
  const columns = `${productColumns(conditions.since)}, ${key.key ?? `(${key.expression})::text`} AS sort_key
       ${withVersion ? `, ${RATES_VERSION} AS rates_version` : ''}`;
  // A bounded walk reads the sort index in a subquery PostgreSQL cannot push the other conditions into: at most
  // walkAtMost rows, fewer once the page is found, since its order (the key it names) is the page's.
  const source =
    how.walkAtMost === undefined
      ? 'products p'
      : `(SELECT p.*, ${key.expression} AS walk_key FROM products p WHERE ${walk.join(' AND ')}
          ORDER BY ${key.expression} ${direction}, p.id ${direction} LIMIT ${how.walkAtMost}) AS p`;
  const sortedBy = how.walkAtMost !== undefined ? 'p.walk_key' : how.textLeads ? key.unindexed : key.expression;
  const order = `ORDER BY ${sortedBy} ${direction}, p.id ${direction}`;
  // A page's size is written in (a whole number the query checked): planned for a parameter, PostgreSQL would expect a
  // tenth of the rows and plan a kept statement afresh every time.
  const limit = `LIMIT ${Number.isInteger(search.limit) ? search.limit + 1 : conditions.param(search.limit + 1)}`;
  const matches = `FROM ${source} JOIN hosts h ON h.id = p.host_id WHERE ${where.join(' AND ')}`;
  const { rows } = await db.query(
    how.narrow
      ? `SELECT ${columns}
         FROM (SELECT p.host_id, p.id ${matches} ${order} ${limit}) AS page
           JOIN products p ON p.host_id = page.host_id AND p.id = page.id JOIN hosts h ON h.id = p.host_id
         ${order}`
      : `SELECT ${columns} ${matches} ${order} ${limit}`,
    conditions.params,
    conditions.valuesSteerPlan ? undefined : { prepared: true },
  );
  const read = rows[0]?.rates_version;
  if (withVersion && typeof read === 'string') version.read = { ratesVersion: read };
  return { rows: rows.slice(0, search.limit), more: rows.length > search.limit };
}

/**
 * Whether an index of the host's serves its listing in this order: by id (products_host_status) or, unless the text
 * leads (its matches are sorted then), by the base price (migration 055).
 */
function hostIndexed(key: SortKey, textLeads: boolean): boolean {
  return key.expression === 'p.id' || (key === SORT_KEY.price && !textLeads);
}

function resultOf(rows: Record<string, unknown>[], more: boolean, freshness: Freshness): { products: ListedProduct[]; next: Keyset | null } {
  const last = rows.at(-1);
  return {
    products: rows.map((row) => toListedProduct(row, freshness)),
    next: more && last ? { key: String(last.sort_key), id: String(last.id) } : null,
  };
}

/**
 * Below this share of the listing, walking a sort index to fill a page reads more rows than sorting the matches:
 * a page of 20 among a million rows costs about 20 / share rows to walk and share × 1 000 000 to sort.
 */
const COMMON_WORD_SHARE = 0.005;

/** The rows a bounded walk reads at most: what a page of matches as common as COMMON_WORD_SHARE fills on average. */
function walkBound(limit: number): number {
  return Math.ceil((limit + 1) / COMMON_WORD_SHARE);
}

/**
 * Whether one sort index serves a walk of the listing by itself (its status, category, a segment's null key and the
 * cursor; migrations 003, 008, 041): the base price, name and newest, within a category or not, and a price sort's
 * unpriced segment outside one (the ids without a EUR price, or without a price). Elsewhere a bounded walk would read
 * more rows than its bound (a spec sort's products without the spec are found among all of them) or sort first.
 */
function walkIndexed(key: SortKey, search: Pick<ProductSearch, 'sort' | 'category'>): boolean {
  if (key === SORT_KEY.price || key === SORT_KEY.name || key === SORT_KEY.newest) return true;
  return key === UNPRICED_SORT_KEY && search.sort === 'price' && search.category === undefined;
}

/**
 * Whether a sort's key is not a spec's, or a spec's that an index serves: RAM within a category (migration 045).
 * Other spec sorts read every product that gives the spec.
 */
function specIndexed(key: SortKey, search: Pick<ProductSearch, 'category'>): boolean {
  if (!SPEC_SORT_KEYS.has(key)) return true;
  return key === SORT_KEY.ram_gb && search.category !== undefined;
}

/** Whether the statistics of the last ANALYZE know each word (as a prefix) to occur in many products. */
function wordsAreCommon(db: Queryable, words: string[]): Promise<boolean> {
  return recently(db, `common:${JSON.stringify(words)}`, WORD_STATISTICS_TTL_MS, () => wordShares(db, words));
}

async function wordShares(db: Queryable, words: string[]): Promise<boolean> {
  const { rows } = await db.query<{ share: number | string }>(
    `SELECT coalesce(min(share), 0) AS share FROM (
       SELECT w.word, coalesce(sum(e.freq), 0) AS share
       FROM unnest($1::text[]) AS w(word)
       LEFT JOIN (
         SELECT e.lexeme, e.freq
         FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(lexeme, freq)
         WHERE s.schemaname = current_schema() AND s.tablename = 'products' AND s.attname = 'search_text'
       ) AS e ON starts_with(e.lexeme, w.word)
       GROUP BY w.word) AS shares`,
    [words],
  );
  return Number(rows[0]?.share ?? 0) >= COMMON_WORD_SHARE;
}

/** A listed product, stale or not (its page says so); price drops are shown since `dropsSince` (YYYY-MM-DD). */
export async function findListedProduct(db: Queryable, id: string, freshness: Freshness, dropsSince: string): Promise<ListedProduct | null> {
  const { rows } = await db.query(
    `SELECT ${productColumns('$2::text')}
     FROM products p JOIN hosts h ON h.id = p.host_id
     WHERE p.id = $1 AND p.status = 'active' AND h.status = 'active'`,
    [id, dropsSince],
    // One row by its id: the same plan for every product.
    { prepared: true },
  );
  return rows[0] ? toListedProduct(rows[0], freshness) : null;
}

/** The listed products among `ids`, in the order of `ids`; ids that are not listed (any more) are left out. */
export async function findListedProducts(db: Queryable, ids: readonly string[], freshness: Freshness, dropsSince: string): Promise<ListedProduct[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query(
    `SELECT ${productColumns('$2::text')}
     FROM products p JOIN hosts h ON h.id = p.host_id
     WHERE p.id = ANY ($1::text[]) AND p.status = 'active' AND h.status = 'active'`,
    [ids, dropsSince],
  );
  const found = new Map(rows.map((row) => [String(row.id), toListedProduct(row, freshness)]));
  return ids.flatMap((id) => found.get(id) ?? []);
}

const HOST_COLUMNS = `h.slug, h.name, h.default_currency, h.created_at, h.confirmed_at, ${PUBLIC_PROFILE_COLUMNS}`;
/** A host's listed products, counted (an index-only walk of the host's entries). */
const PRODUCT_COUNT = `(SELECT count(*) FROM products p WHERE p.host_id = h.id AND p.status = 'active')::int AS product_count`;

function toListedHost(row: Record<string, unknown>, freshness: Freshness): ListedHost {
  const confirmedAt = isoOrNull(row.confirmed_at);
  return {
    slug: String(row.slug),
    name: String(row.name),
    default_currency: String(row.default_currency),
    ...publicProfileOf(row),
    product_count: Number(row.product_count),
    created_at: iso(row.created_at),
    last_synced_at: confirmedAt,
    confirmed_at: confirmedAt,
    stale: isStale(confirmedAt, freshness),
  };
}

/** Active hosts in slug order, a page at a time; afterSlug is the previous page's last slug. */
export async function listListedHosts(
  db: Queryable,
  page: { limit: number; afterSlug: string | null; freshness: Freshness },
): Promise<{ hosts: ListedHost[]; next: string | null }> {
  const { rows } = await db.query(
    `SELECT h.id::text AS id, ${HOST_COLUMNS} FROM hosts h
     WHERE h.status = 'active' AND ($1::text IS NULL OR h.slug > $1::text)
     ORDER BY h.slug LIMIT $2`,
    [page.afterSlug, page.limit + 1],
    { prepared: true },
  );
  const listed = rows.slice(0, page.limit);
  const counts = await productCounts(db, listed.map((row) => String(row.id)));
  const hosts = listed.map((row) => toListedHost({ ...row, product_count: counts.get(String(row.id)) ?? 0 }, page.freshness));
  return { hosts, next: rows.length > page.limit ? (hosts.at(-1)?.slug ?? null) : null };
}

/**
 * The listed products of each of a list's hosts, kept LISTING_FIGURES_TTL_MS like the other figures beside a
 * listing: counting a thousand products for each of the home page's 30 hosts cost PostgreSQL about 4 ms a view. A
 * host's own page counts its products afresh.
 */
function productCounts(db: Queryable, hostIds: string[]): Promise<Map<string, number>> {
  if (hostIds.length === 0) return Promise.resolve(new Map());
  return recently(db, `host-counts:${hostIds.join(',')}`, LISTING_FIGURES_TTL_MS, async () => {
    const { rows } = await db.query<{ id: string; product_count: number }>(
      `SELECT h.id::text AS id, ${PRODUCT_COUNT} FROM unnest($1::bigint[]) AS h (id)`,
      [hostIds],
    );
    return new Map(rows.map((row) => [row.id, Number(row.product_count)]));
  });
}

export async function findListedHost(db: Queryable, slug: string, freshness: Freshness): Promise<ListedHost | null> {
  const { rows } = await db.query(`SELECT ${HOST_COLUMNS}, ${PRODUCT_COUNT} FROM hosts h WHERE h.slug = $1 AND h.status = 'active'`, [slug], {
    prepared: true,
  });
  return rows[0] ? toListedHost(rows[0], freshness) : null;
}

/**
 * The category registry as the pages show it (kept LISTING_FIGURES_TTL_MS): categories are only ever added, so a
 * slug missing from it is looked up afresh (`category`) before a page says there is no such category.
 */
export function categoryRegistry(db: Queryable): Promise<Category[]> {
  return recently(db, 'category-registry', LISTING_FIGURES_TTL_MS, () => listCategories(db));
}

/** A category of the registry with every category, or null for a slug that is none (read afresh to be sure). */
export async function findCategory(db: Queryable, slug: string): Promise<{ category: Category; all: Category[] } | null> {
  const inRegistry = (all: Category[]) => {
    const category = all.find((candidate) => candidate.slug === slug);
    return category ? { category, all } : null;
  };
  // The registry is read afresh only for a slug the kept one does not hold (a category added since).
  return inRegistry(await categoryRegistry(db)) ?? inRegistry(await listCategories(db));
}

/** Every category with its listed products counted up to CATEGORY_COUNT_CAP (kept LISTING_FIGURES_TTL_MS). */
export function listListedCategories(db: Queryable): Promise<ListedCategory[]> {
  return recently(db, 'categories', LISTING_FIGURES_TTL_MS, () => countListedCategories(db));
}

async function countListedCategories(db: Queryable): Promise<ListedCategory[]> {
  const { rows: categories } = await db.query<{ slug: string; label: string }>('SELECT slug, label FROM categories ORDER BY label');
  if (categories.length === 0) return [];
  // One subquery per category with its slug written in (slugs are checked by the table: [a-z0-9_-]): planned for a
  // parameter, PostgreSQL expects an average category and walked most of a million products for a small one.
  const { rows } = await db.query<{ k: number; n: number }>(
    categories
      .map(
        (category, k) => `SELECT ${k} AS k, count(*)::int AS n FROM (
           SELECT 1 FROM products p JOIN hosts h ON h.id = p.host_id
           WHERE p.category = '${category.slug.replaceAll("'", "''")}' AND p.status = 'active' AND h.status = 'active'
           LIMIT ${CATEGORY_COUNT_CAP}) AS listed`,
      )
      .join('\nUNION ALL\n'),
  );
  const counts = new Map(rows.map((row) => [Number(row.k), Number(row.n)]));
  return categories.map((category, k) => ({ slug: category.slug, label: category.label, product_count: counts.get(k) ?? 0 }));
}

export interface FilterChoices {
  /** cities by the gazetteer's name; a location it does not know as listed */
  locations: string[];
  features: string[];
  currencies: string[];
  /** ISO codes of the locations' countries */
  countries: string[];
}

/**
 * Locations, features and currencies to offer as filters, the most frequent first, read from a bounded sample
 * of the listing so that a category of a hundred thousand products costs no more than a small one.
 */
export function filterChoices(db: Queryable, scope: { category?: string; hostSlug?: string }): Promise<FilterChoices> {
  return recently(db, `choices:${scope.category ?? ''}:${scope.hostSlug ?? ''}`, LISTING_FIGURES_TTL_MS, () => sampleChoices(db, scope));
}

async function sampleChoices(db: Queryable, scope: { category?: string; hostSlug?: string }): Promise<FilterChoices> {
  const { rows } = await db.query<{ kind: string; value: string }>(
    `WITH sample AS (
       SELECT p.datacenter_locations, p.features, p.currency
       FROM products p JOIN hosts h ON h.id = p.host_id
       WHERE p.status = 'active' AND h.status = 'active'
         AND ($1::text IS NULL OR p.category = $1::text) AND ($2::text IS NULL OR h.slug = $2::text)
       LIMIT 2000)
     (SELECT 'location' AS kind, value FROM sample, jsonb_array_elements_text(coalesce(datacenter_locations, '[]')) AS value
      GROUP BY value ORDER BY count(*) DESC, value LIMIT 40)
     UNION ALL
     (SELECT 'feature', value FROM sample, jsonb_array_elements_text(coalesce(features, '[]')) AS value
      GROUP BY value ORDER BY count(*) DESC, value LIMIT 40)
     UNION ALL
     (SELECT 'currency', currency FROM sample GROUP BY currency ORDER BY count(*) DESC, currency LIMIT 20)`,
    [scope.category ?? null, scope.hostSlug ?? null],
  );
  const of = (kind: string) => rows.filter((row) => row.kind === kind).map((row) => row.value);
  const alphabetical = (values: Iterable<string>) => [...values].sort((a, b) => a.localeCompare(b));
  // "FRA", "Frankfurt" and "Frankfurt am Main" are one choice, Frankfurt; features that differ only in case or
  // spacing are one as well (the first spelling seen, the most frequent).
  const locations = new Set<string>();
  const countries = new Set<string>();
  for (const location of of('location')) {
    const place = placeOf(location);
    locations.add(place?.city ?? location);
    if (place) countries.add(place.country);
  }
  const features = new Map<string, string>();
  for (const feature of of('feature')) if (!features.has(facet.feature(feature))) features.set(facet.feature(feature), feature);
  // The most frequent currency comes first: it is the one a price limit most likely means.
  return {
    locations: alphabetical(locations),
    features: alphabetical(features.values()),
    currencies: of('currency'),
    countries: [...countries].sort((a, b) => (COUNTRY_LABELS.get(a) ?? a).localeCompare(COUNTRY_LABELS.get(b) ?? b)),
  };
}
