// The directory's HTML pages. Unknown slugs and ids answer an HTML 404 here; /api/* keeps problem+json.
import { isCurrencyCode } from '../../catalog/currency.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Category } from '../../store/categories.js';
import { COUNTRY_LABELS } from '../../catalog/gazetteer.js';
import { DISK_TYPES, NUMERIC_SPEC_KEYS, NUMERIC_SPECS, SPEC_LABELS, type NumericSpec } from '../../catalog/specs.js';
import { keptFilterChoices } from '../../store/directory/filter-choices.js';
import { keptCategoryRegistry, findCategory, keptListedCategories } from '../../store/directory/listed-categories.js';
import { findListedHost, listListedHosts } from '../../store/directory/listed-hosts.js';
import { findListedProduct } from '../../store/directory/listed-product.js';
import { pricedSearch } from '../../store/directory/priced-search.js';
import { countProducts, termsMatchingNothing } from '../../store/directory/product-counts.js';
import type { ProductSearch } from '../../store/directory/search.js';
import { html, Html } from '../../web/html.js';
import { jsonLdScript, productStructuredData } from '../../web/seo.js';
import {
  badRequestPage,
  categoryPage,
  homePage,
  hostPage,
  hostsPage,
  notFoundPage,
  PAGE_SORTS,
  pageSort,
  productPage,
  queryString,
  searchPage,
  unavailablePage,
  type PageFilters,
  type ResultPage,
} from '../../web/pages.js';
import { dayBefore, freshnessOf } from '../../store/freshness.js';
import { listedPriceHistory } from '../../store/price-history.js';
import type { AppContext } from '../context.js';
import {
  encodeSearchCursor,
  PRICE_DROP_DAYS,
  SPEC_RANGE_PARAMETERS,
  toProductSearch,
  type ProductSearchQuery,
} from '../directory-query.js';
import { BASE_CURRENCY } from '../../catalog/rates.js';
import { readPriceContext, type PriceContext } from '../../store/rates.js';
import { priceView, pricedProduct, unconvertedAmong, type PriceView } from '../listed-prices.js';
import { notOneOf, Problem } from '../problems.js';
import { isCalendarDay } from '../directory-query.js';
import { publicBaseUrl } from '../public-url.js';

const PAGE_SIZE = 24;

type RawQuery = Record<string, unknown>;

/** Control characters (NUL, escape, C1 codes): never part of a filter, and never shown back on a page. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

function text(query: RawQuery, name: string, maxLength = 200): string | undefined {
  const value = query[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.replace(CONTROL_CHARACTERS, ' ').trim();
  return trimmed && trimmed.length <= maxLength ? trimmed : undefined;
}

/** Parameters a page reads; anything else in its query (utm_…, a stray field) is no filter and is ignored. */
const RANGE_PARAMETERS = new Set<string>(SPEC_RANGE_PARAMETERS);
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
  'price_dropped_since',
]);

/**
 * What a form sent, with what is wrong with it: a value that makes no sense is shown back in the form and named
 * in a visible message, never silently dropped (the page then lists nothing rather than something else).
 */
function filtersOf(query: RawQuery, fixed: { category?: string } = {}): { filters: PageFilters; problems: string[] } {
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
function rangeLabel(parameter: string): string {
  const key = parameter.slice(4) as NumericSpec;
  const unit = NUMERIC_SPECS[key].unit ? ` (${NUMERIC_SPECS[key].unit})` : '';
  return `${SPEC_LABELS[key]}${unit} ${parameter.startsWith('min_') ? 'at least' : 'at most'}`;
}

function searchOf(
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
    price_dropped_since: filters.price_dropped_since,
    sort: sort === 'price' ? undefined : sort,
    // Only an order other than the sort's own default (ascending for price and name, else descending).
    order: order === (sort === 'price' || sort === 'name' ? 'asc' : 'desc') ? undefined : order,
  });
}

function takeAwayLinks(filters: PageFilters, host?: string): { feedHref: string; csvHref: string } {
  // The feed is ordered by time: the sort is the export's only.
  const { sort: _sort, ...unsorted } = filters;
  return {
    feedHref: `/api/v1/directory/feed.atom${apiQuery({ ...unsorted, sort: 'price' }, host)}`,
    csvHref: `/api/v1/directory/export.csv${apiQuery(filters, host)}`,
  };
}

function filterParams(filters: PageFilters, withCategory: boolean): Record<string, string | undefined> {
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
    price_dropped_since: filters.price_dropped_since,
    view: filters.view,
    sort: filters.sort === 'price' ? undefined : filters.sort,
  };
}

/** The most matches a page counts exactly; beyond, it says "more than". */
const COUNT_CAP = 1000;

/**
 * The filters that choose what a page lists; the sort, the cursor, how prices are shown (display currency, period)
 * and anything else do not make another page.
 */
function canonicalParams(filters: PageFilters, withCategory: boolean): Record<string, string | undefined> {
  const { sort: _sort, display_currency: _display, period: _period, ...chosen } = filterParams(filters, withCategory);
  return chosen;
}

/** The display currency of a page and its rates; one without a rate falls back to EUR, with a note. */
function pageView(context: AppContext, filters: PageFilters, prices: PriceContext): PriceView {
  return priceView(
    { display: filters.display_currency, filter: filters.currency },
    context.config.displayCurrency,
    prices.rates,
    false,
  );
}

/** The display currencies a visitor may pick: EUR and every currency with a rate. */
function displayChoices(view: PriceView): string[] {
  return [BASE_CURRENCY, ...[...view.rates.keys()].sort()];
}

/** How a list shows prices, with the currencies that could not be converted. */
function priceDisplay(view: PriceView, filters: PageFilters, unconverted: string[]): ResultPage['prices'] {
  return {
    currency: view.currency,
    period: filters.period === 'year' ? 'year' : 'month',
    unconverted,
    note: view.note,
    carry: queryString({ display_currency: filters.display_currency }),
    asked: filters.display_currency ?? null,
  };
}

/** A page of results and the price view it is shown in. */
interface PricedPage {
  page: ResultPage;
  view: PriceView;
}

async function resultPage(
  context: AppContext,
  build: (prices: PriceContext) => ProductSearch,
  path: string,
  params: Record<string, string | undefined>,
  onFirstPage: boolean,
  links: { feedHref: string; csvHref: string },
  shown: { filters: PageFilters; scope: { category?: string; hostSlug?: string } },
): Promise<PricedPage> {
  const [{ search, page, prices, beside: count }, choices] = await Promise.all([
    pricedSearch(context.directory, build, (search) => countProducts(context.directory, search, COUNT_CAP)),
    keptFilterChoices(context.directory, shown.scope),
  ]);
  const view = pageView(context, shown.filters, prices);
  const cursor = encodeSearchCursor(search.sort, search.order, page.next);
  const unmatched =
    page.products.length === 0 && onFirstPage ? await unmatchedWords(context, search, path, params) : null;
  return {
    view,
    page: {
      products: page.products.map((product) => pricedProduct(product, view)),
      prices: priceDisplay(view, shown.filters, unconvertedAmong(prices, page.products, choices.currencies)),
      nextHref: cursor ? `${path}${queryString({ ...params, cursor })}` : null,
      firstHref: onFirstPage ? null : `${path}${queryString(params)}`,
      ...links,
      count,
      clearHref: clearHref(path, params),
      sortHref: (sort) => `${path}${queryString({ ...params, sort: sort === 'price' ? undefined : sort })}`,
      problems: [],
      unmatched,
    },
  };
}

/** Parameters of a page that choose no plans: how the list is shown, and its words. */
const UNFILTERING = new Set(['q', 'sort', 'view', 'display_currency', 'period', 'cursor']);

/** Of a search that found nothing: the words no plan matches within its filters, and the search without them. */
async function unmatchedWords(
  context: AppContext,
  search: ProductSearch,
  path: string,
  params: Record<string, string | undefined>,
): Promise<ResultPage['unmatched']> {
  const found = await termsMatchingNothing(context.directory, search);
  // A search of one term and no other filter that found nothing is that term matching nothing here (the store counts
  // terms only of two or more); beside other filters, those may be what leaves nothing.
  const filtered = Object.entries(params).some(([name, value]) => value !== undefined && !UNFILTERING.has(name));
  const alone = found.unmatched.length === 0 && found.matched.length === 1 && !filtered;
  const { unmatched, matched } = alone ? { unmatched: found.matched, matched: [] } : found;
  if (unmatched.length === 0) return null;
  const instead = matched.join(' ');
  // Without any of its words, the search is the page's other filters alone (every plan, when there are none).
  return {
    words: unmatched,
    insteadQuery: instead,
    insteadHref: `${path}${queryString({ ...params, q: instead || undefined, cursor: undefined })}`,
  };
}

/** The page without its filters (the words of a search stay: they are what was searched), or null without any. */
function clearHref(path: string, params: Record<string, string | undefined>): string | null {
  const filtered = Object.entries(params).some(
    ([name, value]) => value !== undefined && name !== 'q' && name !== 'view' && name !== 'sort',
  );
  return filtered ? `${path}${queryString({ q: params.q, view: params.view })}` : null;
}

/** A page that lists nothing and says what was wrong with its filters. */
function problemPage(
  path: string,
  params: Record<string, string | undefined>,
  problems: string[],
  prices: ResultPage['prices'],
): ResultPage {
  return {
    products: [],
    prices,
    nextHref: null,
    firstHref: null,
    count: null,
    clearHref: `${path}${queryString({ q: params.q })}`,
    sortHref: () => path,
    problems,
    unmatched: null,
    feedHref: '',
    csvHref: '',
  };
}

/** Problems of a search the query schema could not see (a minimum above its maximum), as the page says them. */
function problemsOf(error: unknown): string[] | null {
  if (!(error instanceof Problem) || error.code !== 'VALIDATION_FAILED') return null;
  const errors = (error.extra?.errors ?? []) as { parameter?: string; detail?: string }[];
  if (errors.some((e) => e.parameter === 'cursor')) return null;
  return errors.map((e) =>
    e.parameter && RANGE_PARAMETERS.has(e.parameter) ? `${rangeLabel(e.parameter)}: ${e.detail}` : String(e.detail),
  );
}

/**
 * The results of a page's filters, or what was wrong with them. A page of results is priced at the rates its search
 * was checked against (pricedSearch); a page of problems at the rates read afresh.
 */
async function listing(
  context: AppContext,
  filters: PageFilters,
  problems: string[],
  page: { cursor: string | undefined; path: string; params: Record<string, string | undefined>; host?: string },
  scope: { category?: string; hostSlug?: string },
): Promise<PricedPage> {
  const { cursor, path, params, host } = page;
  const refused = async (found: string[]): Promise<PricedPage> => {
    const view = pageView(context, filters, await readPriceContext(context.directory));
    return { view, page: problemPage(path, params, found, priceDisplay(view, filters, [])) };
  };
  if (problems.length > 0) return refused(problems);
  try {
    const build = (prices: PriceContext) =>
      searchOf(filters, cursor, context.config.staleAfterDays, pageView(context, filters, prices), host);
    return await resultPage(context, build, path, params, !cursor, takeAwayLinks(filters, host), { filters, scope });
  } catch (error) {
    const found = problemsOf(error);
    if (found === null) throw error;
    return refused(found);
  }
}

function sendPage(reply: FastifyReply, page: Html, status = 200, head?: Html): FastifyReply {
  // The first </head> is the layout's: every value in a page is escaped, so none can hold one.
  const text = head ? page.value.replace('</head>', `${head.value}\n</head>`) : page.value;
  return reply.status(status).type('text/html; charset=utf-8').send(text);
}

/** What a page's head holds that depends on the request, not on its data: its absolute canonical address. */
function canonical(
  context: AppContext,
  request: FastifyRequest,
  path: string,
  params: Record<string, string | undefined> = {},
): { url: string; head: Html } {
  const url = `${publicBaseUrl(context.config, request)}${path}${queryString(params)}`;
  return { url, head: html`<link rel="canonical" href="${url}">` };
}

/** A cursor that does not fit the page's sort is a stale or edited link: say so in HTML. */
async function orBadRequest(reply: FastifyReply, render: () => Promise<FastifyReply>): Promise<FastifyReply> {
  try {
    return await render();
  } catch (error) {
    if (error instanceof Problem && error.code === 'VALIDATION_FAILED' && problemsOf(error) === null) {
      return sendPage(reply, badRequestPage('This page link is out of date. Start again from the first page.'), 400);
    }
    throw error;
  }
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

export function sendNotFoundPage(reply: FastifyReply, what: string): FastifyReply {
  return sendPage(reply, notFoundPage(what), 404);
}

/** A page that cannot be answered now (503): said in HTML, with the problem's headers (Retry-After). */
export function sendUnavailablePage(reply: FastifyReply, problem: Problem): FastifyReply {
  const what = problem.detail.replace(/;.*$/, '');
  return sendPage(
    reply.headers(problem.extra.headers ?? {}),
    unavailablePage(`${what.charAt(0).toUpperCase()}${what.slice(1)}.`),
    503,
  );
}

export const pageRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const categories = (): Promise<Category[]> => keptCategoryRegistry(context.directory);
  const { staleAfterDays } = context.config;
  const hostsFreshness = () => freshnessOf(staleAfterDays, true);
  app.addHook('onRequest', redirectToCanonical(context));

  app.get('/', async (request, reply) => {
    const [listed, hosts] = await Promise.all([
      keptListedCategories(context.directory),
      listListedHosts(context.directory, { limit: 30, afterSlug: null, freshness: hostsFreshness() }),
    ]);
    return sendPage(reply, homePage(listed, hosts.hosts), 200, canonical(context, request, '/').head);
  });

  app.get<{ Querystring: RawQuery }>('/hosts', async (request, reply) => {
    const after = text(request.query, 'after', 63) ?? null;
    const page = await listListedHosts(context.directory, { limit: 60, afterSlug: after, freshness: hostsFreshness() });
    const head = canonical(context, request, '/hosts', { after: after ?? undefined }).head;
    return sendPage(
      reply,
      hostsPage(page.hosts, page.next ? `/hosts${queryString({ after: page.next })}` : null),
      200,
      head,
    );
  });

  app.get<{ Params: { slug: string }; Querystring: RawQuery }>('/hosts/:slug', async (request, reply) => {
    const host = await findListedHost(context.directory, request.params.slug, hostsFreshness());
    if (!host) return sendNotFoundPage(reply, 'No provider with that name is listed.');
    return orBadRequest(reply, async () => {
      const cursor = text(request.query, 'cursor', 500);
      const { display_currency, period } = filtersOf(request.query).filters;
      const filters: PageFilters = {
        sort: 'price',
        ...(display_currency ? { display_currency } : {}),
        ...(period ? { period } : {}),
      };
      const params = { display_currency: filters.display_currency, period: filters.period };
      const path = `/hosts/${encodeURIComponent(host.slug)}`;
      const scope = { hostSlug: host.slug };
      const [{ page }, all] = await Promise.all([
        listing(context, filters, [], { cursor, path, params, host: host.slug }, scope),
        categories(),
      ]);
      page.clearHref = null;
      const head = canonical(context, request, path).head;
      return sendPage(reply, hostPage(host, page, all), 200, head);
    });
  });

  app.get<{ Params: { slug: string }; Querystring: RawQuery }>('/categories/:slug', async (request, reply) => {
    // The registry is kept (no round trip for a category it holds): a slug that is none reads nothing else.
    const found = await findCategory(context.directory, request.params.slug);
    if (!found) return sendNotFoundPage(reply, 'There is no such category.');
    const { category, all } = found;
    return orBadRequest(reply, async () => {
      const { filters, problems } = filtersOf(request.query, { category: category.slug });
      const cursor = text(request.query, 'cursor', 500);
      const path = `/categories/${encodeURIComponent(category.slug)}`;
      const params = filterParams(filters, false);
      const scope = { category: category.slug };
      const [{ page, view }, choices] = await Promise.all([
        listing(context, filters, problems, { cursor, path, params }, scope),
        keptFilterChoices(context.directory, scope),
      ]);
      const head = canonical(context, request, path, canonicalParams(filters, false)).head;
      return sendPage(
        reply,
        categoryPage(category, filters, choices, page, all, displayChoices(view)),
        page.problems.length > 0 ? 422 : 200,
        head,
      );
    });
  });

  app.get<{ Querystring: RawQuery }>('/search', async (request, reply) =>
    orBadRequest(reply, async () => {
      const { filters, problems } = filtersOf(request.query);
      const cursor = text(request.query, 'cursor', 500);
      const params = filterParams(filters, true);
      const scope = filters.category ? { category: filters.category } : {};
      const [all, { page, view }, choices] = await Promise.all([
        categories(),
        listing(context, filters, problems, { cursor, path: '/search', params }, scope),
        keptFilterChoices(context.directory, scope),
      ]);
      const head = canonical(context, request, '/search', canonicalParams(filters, true)).head;
      return sendPage(
        reply,
        searchPage(filters, choices, page, all, displayChoices(view)),
        page.problems.length > 0 ? 422 : 200,
        head,
      );
    }),
  );

  app.get<{ Params: { id: string }; Querystring: RawQuery }>('/products/:id', async (request, reply) => {
    const [product, history, prices, all] = await Promise.all([
      findListedProduct(context.directory, request.params.id, hostsFreshness(), dayBefore(PRICE_DROP_DAYS)),
      listedPriceHistory(context.directory, request.params.id),
      readPriceContext(context.directory),
      categories(),
    ]);
    if (!product)
      return sendNotFoundPage(reply, 'This product is not listed (any more). The provider may have withdrawn it.');
    const { display_currency } = filtersOf(request.query).filters;
    const filters: PageFilters = { sort: 'price', ...(display_currency ? { display_currency } : {}) };
    const view = pageView(context, filters, prices);
    const { url, head } = canonical(context, request, `/products/${encodeURIComponent(product.id)}`);
    const label = all.find((category) => category.slug === product.category)?.label ?? product.category;
    const page = productPage(
      pricedProduct(product, view),
      all,
      { ...priceDisplay(view, filters, []), carry: '' },
      history,
    );
    return sendPage(reply, page, 200, html`${head}\n${jsonLdScript(productStructuredData(product, url, label))}`);
  });
};
