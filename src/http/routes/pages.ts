// The directory's HTML pages. Unknown slugs and ids answer an HTML 404 here; /api/* keeps problem+json.
import { isCurrencyCode } from '../../catalog/currency.js';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { listCategories, type Category } from '../../store/categories.js';
import {
  filterChoices,
  findListedHost,
  findListedProduct,
  listListedCategories,
  listListedHosts,
  searchProducts,
  type ProductSearch,
} from '../../store/directory.js';
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
  productPage,
  queryString,
  searchPage,
  type PageFilters,
  type PageSort,
  type ResultPage,
} from '../../web/pages.js';
import type { AppContext } from '../context.js';
import { encodeSearchCursor, toProductSearch } from '../directory-query.js';
import { BASE_CURRENCY } from '../../catalog/rates.js';
import { currentRates, unconvertedCurrencies } from '../../store/rates.js';
import { priceView, pricedProduct, unconvertedAmong, type PriceView } from '../listed-prices.js';
import { Problem } from '../problems.js';
import { publicBaseUrl } from '../public-url.js';

const PAGE_SIZE = 24;

type RawQuery = Record<string, unknown>;

function text(query: RawQuery, name: string, maxLength = 200): string | undefined {
  const value = query[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed && trimmed.length <= maxLength ? trimmed : undefined;
}

/** What a form sent, read leniently: a filter that makes no sense is left out rather than refused. */
function filtersOf(query: RawQuery, fixed: { category?: string } = {}): PageFilters {
  const sort = text(query, 'sort');
  const maxPrice = text(query, 'max_price');
  const filters: PageFilters = { sort: sort && sort in PAGE_SORTS ? (sort as PageSort) : 'price' };
  const q = text(query, 'q');
  const category = fixed.category ?? text(query, 'category', 64);
  const location = text(query, 'location');
  const feature = text(query, 'feature');
  const currency = text(query, 'currency', 3);
  const display = text(query, 'display_currency', 3);
  if (q) filters.q = q;
  if (category) filters.category = category;
  if (location) filters.location = location;
  if (feature) filters.feature = feature;
  if (maxPrice && /^\d{1,9}(\.\d{1,4})?$/.test(maxPrice)) filters.max_price = maxPrice;
  if (currency && isCurrencyCode(currency)) filters.currency = currency.toUpperCase();
  if (display && isCurrencyCode(display)) filters.display_currency = display.toUpperCase();
  if (text(query, 'period') === 'year') filters.period = 'year';
  return filters;
}

function searchOf(filters: PageFilters, cursor: string | undefined, view: PriceView, host?: string): ProductSearch {
  const { sort, order } = PAGE_SORTS[filters.sort];
  return toProductSearch(
    {
      q: filters.q,
      category: filters.category,
      location: filters.location,
      feature: filters.feature,
      host,
      max_price: filters.max_price === undefined ? undefined : Number(filters.max_price),
      // Only plans priced in this currency; the price limit is in the display currency.
      currency: filters.currency,
      sort,
      order,
      cursor,
      limit: PAGE_SIZE,
    },
    { limit: PAGE_SIZE },
    view,
  );
}

function filterParams(filters: PageFilters, withCategory: boolean): Record<string, string | undefined> {
  return {
    q: filters.q,
    category: withCategory ? filters.category : undefined,
    location: filters.location,
    feature: filters.feature,
    max_price: filters.max_price,
    currency: filters.currency,
    display_currency: filters.display_currency,
    period: filters.period,
    sort: filters.sort === 'price' ? undefined : filters.sort,
  };
}

/** The display currency of a page and its rates; one without a rate falls back to EUR, with a note. */
async function pageView(context: AppContext, filters: PageFilters): Promise<PriceView> {
  const rates = await currentRates(context.directory);
  return priceView({ display: filters.display_currency, filter: filters.currency }, context.config.displayCurrency, rates, false);
}

/** The display currencies a visitor may pick: EUR and every currency with a rate. */
function displayChoices(view: PriceView): string[] {
  return [BASE_CURRENCY, ...[...view.rates.keys()].sort()];
}

/**
 * The filters that choose what a page lists; the sort, the cursor, how prices are shown (display currency, period)
 * and anything else do not make another page.
 */
function canonicalParams(filters: PageFilters, withCategory: boolean): Record<string, string | undefined> {
  const { sort: _sort, display_currency: _display, period: _period, ...chosen } = filterParams(filters, withCategory);
  return chosen;
}

async function resultPage(
  context: AppContext,
  search: ProductSearch,
  path: string,
  params: Record<string, string | undefined>,
  onFirstPage: boolean,
  view: PriceView,
  period: PageFilters['period'],
  scope: { category?: string; hostSlug?: string },
): Promise<ResultPage> {
  const [page, unconverted, choices] = await Promise.all([
    searchProducts(context.directory, search),
    unconvertedCurrencies(context.directory),
    filterChoices(context.directory, scope),
  ]);
  const cursor = encodeSearchCursor(search.sort, search.order, page.next);
  return {
    products: page.products.map((product) => pricedProduct(product, view)),
    prices: {
      currency: view.currency,
      period: period === 'year' ? 'year' : 'month',
      unconverted: unconvertedAmong(unconverted, [...choices.currencies, ...page.products.map((product) => product.currency)]),
      note: view.note,
      carry: queryString({ display_currency: params.display_currency }),
    },
    nextHref: cursor ? `${path}${queryString({ ...params, cursor })}` : null,
    firstHref: onFirstPage ? null : `${path}${queryString(params)}`,
  };
}

function sendPage(reply: FastifyReply, page: Html, status = 200, head?: Html): FastifyReply {
  // The first </head> is the layout's: every value in a page is escaped, so none can hold one.
  const text = head ? page.value.replace('</head>', `${head.value}\n</head>`) : page.value;
  return reply.status(status).type('text/html; charset=utf-8').send(text);
}

/** What a page's head holds that depends on the request, not on its data: its absolute canonical address. */
function canonical(context: AppContext, request: FastifyRequest, path: string, params: Record<string, string | undefined> = {}): { url: string; head: Html } {
  const url = `${publicBaseUrl(context.config, request)}${path}${queryString(params)}`;
  return { url, head: html`<link rel="canonical" href="${url}">` };
}

/** A cursor that does not fit the page's sort is a stale or edited link: say so in HTML. */
async function orBadRequest(reply: FastifyReply, render: () => Promise<FastifyReply>): Promise<FastifyReply> {
  try {
    return await render();
  } catch (error) {
    if (error instanceof Problem && error.code === 'VALIDATION_FAILED') {
      return sendPage(reply, badRequestPage('This page link is out of date. Start again from the first page.'), 400);
    }
    throw error;
  }
}

export function sendNotFoundPage(reply: FastifyReply, what: string): FastifyReply {
  return sendPage(reply, notFoundPage(what), 404);
}

export const pageRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const categories = (): Promise<Category[]> => listCategories(context.directory);

  app.get('/', async (request, reply) => {
    const [listed, hosts] = await Promise.all([
      listListedCategories(context.directory),
      listListedHosts(context.directory, { limit: 30, afterSlug: null }),
    ]);
    return sendPage(reply, homePage(listed, hosts.hosts), 200, canonical(context, request, '/').head);
  });

  app.get<{ Querystring: RawQuery }>('/hosts', async (request, reply) => {
    const after = text(request.query, 'after', 63) ?? null;
    const page = await listListedHosts(context.directory, { limit: 60, afterSlug: after });
    const head = canonical(context, request, '/hosts', { after: after ?? undefined }).head;
    return sendPage(reply, hostsPage(page.hosts, page.next ? `/hosts${queryString({ after: page.next })}` : null), 200, head);
  });

  app.get<{ Params: { slug: string }; Querystring: RawQuery }>('/hosts/:slug', async (request, reply) => {
    const host = await findListedHost(context.directory, request.params.slug);
    if (!host) return sendNotFoundPage(reply, 'No provider with that name is listed.');
    return orBadRequest(reply, async () => {
      const cursor = text(request.query, 'cursor', 500);
      const { display_currency, period } = filtersOf(request.query);
      const filters: PageFilters = { sort: 'price', ...(display_currency ? { display_currency } : {}), ...(period ? { period } : {}) };
      const view = await pageView(context, filters);
      const params = { display_currency: filters.display_currency, period: filters.period };
      const page = await resultPage(context, searchOf(filters, cursor, view, host.slug), `/hosts/${encodeURIComponent(host.slug)}`, params, !cursor, view, filters.period, { hostSlug: host.slug });
      const head = canonical(context, request, `/hosts/${encodeURIComponent(host.slug)}`).head;
      return sendPage(reply, hostPage(host, page, await categories()), 200, head);
    });
  });

  app.get<{ Params: { slug: string }; Querystring: RawQuery }>('/categories/:slug', async (request, reply) => {
    const all = await categories();
    const category = all.find((candidate) => candidate.slug === request.params.slug);
    if (!category) return sendNotFoundPage(reply, 'There is no such category.');
    return orBadRequest(reply, async () => {
      const filters = filtersOf(request.query, { category: category.slug });
      const cursor = text(request.query, 'cursor', 500);
      const view = await pageView(context, filters);
      const scope = { category: category.slug };
      const [page, choices] = await Promise.all([
        resultPage(context, searchOf(filters, cursor, view), `/categories/${encodeURIComponent(category.slug)}`, filterParams(filters, false), !cursor, view, filters.period, scope),
        filterChoices(context.directory, scope),
      ]);
      const head = canonical(context, request, `/categories/${encodeURIComponent(category.slug)}`, canonicalParams(filters, false)).head;
      return sendPage(reply, categoryPage(category, filters, choices, page, all, displayChoices(view)), 200, head);
    });
  });

  app.get<{ Querystring: RawQuery }>('/search', async (request, reply) =>
    orBadRequest(reply, async () => {
      const filters = filtersOf(request.query);
      const cursor = text(request.query, 'cursor', 500);
      const view = await pageView(context, filters);
      const scope = filters.category ? { category: filters.category } : {};
      const [all, page, choices] = await Promise.all([
        categories(),
        resultPage(context, searchOf(filters, cursor, view), '/search', filterParams(filters, true), !cursor, view, filters.period, scope),
        filterChoices(context.directory, scope),
      ]);
      return sendPage(reply, searchPage(filters, choices, page, all, displayChoices(view)), 200, canonical(context, request, '/search', canonicalParams(filters, true)).head);
    }),
  );

  app.get<{ Params: { id: string }; Querystring: RawQuery }>('/products/:id', async (request, reply) => {
    const product = await findListedProduct(context.directory, request.params.id);
    if (!product) return sendNotFoundPage(reply, 'This product is not listed (any more). The provider may have withdrawn it.');
    const filters = filtersOf(request.query);
    const view = await pageView(context, { sort: 'price', ...(filters.display_currency ? { display_currency: filters.display_currency } : {}) });
    const prices = { currency: view.currency, period: 'month' as const, unconverted: [], note: view.note, carry: '' };
    const all = await categories();
    const { url, head } = canonical(context, request, `/products/${encodeURIComponent(product.id)}`);
    const label = all.find((category) => category.slug === product.category)?.label ?? product.category;
    return sendPage(reply, productPage(pricedProduct(product, view), all, prices), 200, html`${head}\n${jsonLdScript(productStructuredData(product, url, label))}`);
  });
};
