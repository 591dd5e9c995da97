// The directory's HTML pages. Unknown slugs and ids answer an HTML 404 here; /api/* keeps problem+json.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Category } from '../../store/categories.js';
import { keptFilterChoices } from '../../store/directory/filter-choices.js';
import { keptCategoryRegistry, findCategory, keptListedCategories } from '../../store/directory/listed-categories.js';
import { findListedHost, listListedHosts } from '../../store/directory/listed-hosts.js';
import { cheaperAlternatives } from '../../store/directory/alternatives.js';
import { findPricedProduct } from '../../store/directory/priced-search.js';
import { dayBefore, freshnessOf } from '../../store/freshness.js';
import { listedPriceHistory } from '../../store/price-history.js';
import { html, Html } from '../../web/html.js';
import {
  badRequestPage,
  categoryPage,
  homePage,
  hostPage,
  hostsPage,
  notFoundPage,
  productPage,
  queryString,
  searchPage,
  unavailablePage,
} from '../../web/pages.js';
import type { PageFilters } from '../../web/page-filters.js';
import { jsonLdScript, productStructuredData } from '../../web/seo.js';
import type { AppContext } from '../context.js';
import { PRICE_DROP_DAYS } from '../directory-query.js';
import { pricedProduct } from '../listed-prices.js';
import { type RawQuery, canonicalParams, filterParams, filtersOf, redirectToCanonical, text } from '../page-filters.js';
import { displayChoices, listing, pageView, priceDisplay, problemsOf } from '../page-listing.js';
import { Problem } from '../problems.js';
import { publicBaseUrl } from '../public-url.js';

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

/** The cheaper alternatives a product page lists (the API lists more on request). */
const PRODUCT_PAGE_ALTERNATIVES = 5;

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
    const [found, history, all] = await Promise.all([
      findPricedProduct(context.directory, request.params.id, hostsFreshness(), dayBefore(PRICE_DROP_DAYS)),
      listedPriceHistory(context.directory, request.params.id),
      categories(),
    ]);
    if (!found)
      return sendNotFoundPage(reply, 'This product is not listed (any more). The provider may have withdrawn it.');
    const { product, prices } = found;
    const { display_currency } = filtersOf(request.query).filters;
    const filters: PageFilters = { sort: 'price', ...(display_currency ? { display_currency } : {}) };
    const view = pageView(context, filters, prices);
    const { url, head } = canonical(context, request, `/products/${encodeURIComponent(product.id)}`);
    const label = all.find((category) => category.slug === product.category)?.label ?? product.category;
    // Plans of other providers that cost less, as a search lists them: stale providers' left out.
    const alternatives = await cheaperAlternatives(context.directory, product, {
      freshness: freshnessOf(staleAfterDays, false),
      dropsSince: dayBefore(PRICE_DROP_DAYS),
      limit: PRODUCT_PAGE_ALTERNATIVES,
    });
    const page = productPage(
      pricedProduct(product, view),
      all,
      { ...priceDisplay(view, filters, []), carry: '' },
      history,
      {
        products: alternatives.map((alternative) => pricedProduct(alternative, view)),
        carry: queryString({ display_currency: filters.display_currency }),
      },
    );
    return sendPage(reply, page, 200, html`${head}\n${jsonLdScript(productStructuredData(product, url, label))}`);
  });
};
