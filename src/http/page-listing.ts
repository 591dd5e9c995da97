// The list of plans a page shows: its search run and priced, or the problems of its filters said instead.

import { BASE_CURRENCY } from '../catalog/rates.js';
import { keptFilterChoices } from '../store/directory/filter-choices.js';
import { pricedSearch } from '../store/directory/priced-search.js';
import { countProducts, termsMatchingNothing } from '../store/directory/product-counts.js';
import type { ProductSearch } from '../store/directory/search.js';
import { readPriceContext, type PriceContext } from '../store/rates.js';
import { queryString } from '../web/pages.js';
import type { PageFilters } from '../web/page-filters.js';
import type { ResultPage } from '../web/result-list.js';
import type { AppContext } from './context.js';
import { encodeSearchCursor } from './directory-query.js';
import { priceView, pricedProduct, unconvertedAmong, type PriceView } from './listed-prices.js';
import { RANGE_PARAMETERS, rangeLabel, searchOf, takeAwayLinks } from './page-filters.js';
import { Problem } from './problems.js';

/** The most matches a page counts exactly; beyond, it says "more than". */
const COUNT_CAP = 1000;

/** The display currency of a page and its rates; one without a rate falls back to EUR, with a note. */
export function pageView(context: AppContext, filters: PageFilters, prices: PriceContext): PriceView {
  return priceView(
    { display: filters.display_currency, filter: filters.currency },
    context.config.displayCurrency,
    prices.rates,
    false,
  );
}

/** The display currencies a visitor may pick: EUR and every currency with a rate. */
export function displayChoices(view: PriceView): string[] {
  return [BASE_CURRENCY, ...[...view.rates.keys()].sort()];
}

/** How a list shows prices, with the currencies that could not be converted. */
export function priceDisplay(view: PriceView, filters: PageFilters, unconverted: string[]): ResultPage['prices'] {
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
export function problemsOf(error: unknown): string[] | null {
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
export async function listing(
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
