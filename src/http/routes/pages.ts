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
import { dayBefore, freshnessOf } from '../../store/freshness.js';
import { listedPriceHistory } from '../../store/price-history.js';
import type { AppContext } from '../context.js';
import { encodeSearchCursor, PRICE_DROP_DAYS, toProductSearch } from '../directory-query.js';
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
  if (q) filters.q = q;
  if (category) filters.category = category;
  if (location) filters.location = location;
  if (feature) filters.feature = feature;
  if (maxPrice && /^\d{1,9}(\.\d{1,4})?$/.test(maxPrice)) filters.max_price = maxPrice;
  if (currency && isCurrencyCode(currency)) filters.currency = currency.toUpperCase();
  const dropped = text(query, 'price_dropped_since', 10);
  if (dropped && /^\d{4}-\d{2}-\d{2}$/.test(dropped) && !Number.isNaN(Date.parse(`${dropped}T00:00:00Z`)) && new Date(`${dropped}T00:00:00Z`).toISOString().startsWith(dropped)) {
    filters.price_dropped_since = dropped;
  }
  if (text(query, 'include_stale', 5) === '1') filters.include_stale = true;
  return filters;
}

function searchOf(filters: PageFilters, cursor: string | undefined, staleAfterDays: number, host?: string): ProductSearch {
  const { sort, order } = PAGE_SORTS[filters.sort];
  return toProductSearch(
    {
      q: filters.q,
      category: filters.category,
      location: filters.location,
      feature: filters.feature,
      host,
      max_price: filters.max_price === undefined ? undefined : Number(filters.max_price),
      // The form's currency belongs to its price limit: without a limit it filters nothing. A hand-written URL
      // with a limit but no currency means dollars.
      currency: filters.max_price === undefined ? undefined : (filters.currency ?? 'USD'),
      sort,
      order,
      cursor,
      limit: PAGE_SIZE,
      // A provider's own page lists its plans, stale or not, and says which.
      include_stale: filters.include_stale || host !== undefined ? '1' : undefined,
      price_dropped_since: filters.price_dropped_since,
    },
    { limit: PAGE_SIZE, staleAfterDays },
  );
}

/** The same search as the feed and the export take it: the JSON API's parameters. */
function apiQuery(filters: PageFilters, host?: string): string {
  const { sort, order } = PAGE_SORTS[filters.sort];
  return queryString({
    q: filters.q,
    category: filters.category,
    location: filters.location,
    feature: filters.feature,
    host,
    max_price: filters.max_price,
    currency: filters.max_price === undefined ? undefined : (filters.currency ?? 'USD'),
    include_stale: filters.include_stale || host !== undefined ? '1' : undefined,
    price_dropped_since: filters.price_dropped_since,
    sort: sort === 'price' ? undefined : sort,
    // Only an order other than the sort's own default.
    order: (sort === 'newest') === (order === 'desc') ? undefined : order,
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
    max_price: filters.max_price,
    currency: filters.max_price === undefined ? undefined : filters.currency,
    include_stale: filters.include_stale ? '1' : undefined,
    price_dropped_since: filters.price_dropped_since,
    sort: filters.sort === 'price' ? undefined : filters.sort,
  };
}

/** The filters that choose what a page lists; the sort, the cursor and anything else do not make another page. */
function canonicalParams(filters: PageFilters, withCategory: boolean): Record<string, string | undefined> {
  const { sort: _sort, ...chosen } = filterParams(filters, withCategory);
  return chosen;
}

async function resultPage(
  context: AppContext,
  search: ProductSearch,
  path: string,
  params: Record<string, string | undefined>,
  onFirstPage: boolean,
  links: { feedHref: string; csvHref: string },
): Promise<ResultPage> {
  const page = await searchProducts(context.directory, search);
  const cursor = encodeSearchCursor(search.sort, search.order, page.next);
  return {
    products: page.products,
    nextHref: cursor ? `${path}${queryString({ ...params, cursor })}` : null,
    firstHref: onFirstPage ? null : `${path}${queryString(params)}`,
    ...links,
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
  const { staleAfterDays } = context.config;
  const hostsFreshness = () => freshnessOf(staleAfterDays, true);

  app.get('/', async (request, reply) => {
    const [listed, hosts] = await Promise.all([
      listListedCategories(context.directory),
      listListedHosts(context.directory, { limit: 30, afterSlug: null, freshness: hostsFreshness() }),
    ]);
    return sendPage(reply, homePage(listed, hosts.hosts), 200, canonical(context, request, '/').head);
  });

  app.get<{ Querystring: RawQuery }>('/hosts', async (request, reply) => {
    const after = text(request.query, 'after', 63) ?? null;
    const page = await listListedHosts(context.directory, { limit: 60, afterSlug: after, freshness: hostsFreshness() });
    const head = canonical(context, request, '/hosts', { after: after ?? undefined }).head;
    return sendPage(reply, hostsPage(page.hosts, page.next ? `/hosts${queryString({ after: page.next })}` : null), 200, head);
  });

  app.get<{ Params: { slug: string }; Querystring: RawQuery }>('/hosts/:slug', async (request, reply) => {
    const host = await findListedHost(context.directory, request.params.slug, hostsFreshness());
    if (!host) return sendNotFoundPage(reply, 'No provider with that name is listed.');
    return orBadRequest(reply, async () => {
      const cursor = text(request.query, 'cursor', 500);
      const filters: PageFilters = { sort: 'price' };
      const page = await resultPage(
        context,
        searchOf(filters, cursor, staleAfterDays, host.slug),
        `/hosts/${encodeURIComponent(host.slug)}`,
        {},
        !cursor,
        takeAwayLinks(filters, host.slug),
      );
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
      const [page, choices] = await Promise.all([
        resultPage(
          context,
          searchOf(filters, cursor, staleAfterDays),
          `/categories/${encodeURIComponent(category.slug)}`,
          filterParams(filters, false),
          !cursor,
          takeAwayLinks(filters),
        ),
        filterChoices(context.directory, { category: category.slug }),
      ]);
      const head = canonical(context, request, `/categories/${encodeURIComponent(category.slug)}`, canonicalParams(filters, false)).head;
      return sendPage(reply, categoryPage(category, filters, choices, page, all), 200, head);
    });
  });

  app.get<{ Querystring: RawQuery }>('/search', async (request, reply) =>
    orBadRequest(reply, async () => {
      const filters = filtersOf(request.query);
      const cursor = text(request.query, 'cursor', 500);
      const [all, page, choices] = await Promise.all([
        categories(),
        resultPage(context, searchOf(filters, cursor, staleAfterDays), '/search', filterParams(filters, true), !cursor, takeAwayLinks(filters)),
        filterChoices(context.directory, filters.category ? { category: filters.category } : {}),
      ]);
      return sendPage(reply, searchPage(filters, choices, page, all), 200, canonical(context, request, '/search', canonicalParams(filters, true)).head);
    }),
  );

  app.get<{ Params: { id: string } }>('/products/:id', async (request, reply) => {
    const [product, history] = await Promise.all([
      findListedProduct(context.directory, request.params.id, hostsFreshness(), dayBefore(PRICE_DROP_DAYS)),
      listedPriceHistory(context.directory, request.params.id),
    ]);
    if (!product) return sendNotFoundPage(reply, 'This product is not listed (any more). The provider may have withdrawn it.');
    const all = await categories();
    const { url, head } = canonical(context, request, `/products/${encodeURIComponent(product.id)}`);
    const label = all.find((category) => category.slug === product.category)?.label ?? product.category;
    return sendPage(reply, productPage(product, all, history), 200, html`${head}\n${jsonLdScript(productStructuredData(product, url, label))}`);
  });
};
