// A page's list of plans: what it lists, the count, the cards or the table, and what it says when nothing is found.

import type { SpecKey } from '../catalog/specs.js';
import type { PricedProduct } from '../http/listed-prices.js';
import type { Category } from '../store/categories.js';
import type { ListedProduct } from '../store/directory/listed-product.js';
import { formatAgo, formatCount, formatDate, formatPrice, placeLabel, specLabel } from './format.js';
import { html, type Html } from './html.js';
import { watchSearchForm } from './watch-pages.js';
import { type PageFilters, categoryLabel, locationLabel } from './page-filters.js';
import { cardPrices, currencyNotes, type PriceDisplay } from './prices.js';
import { stockLine } from './stock.js';
import { resultTable } from './table.js';

export interface ResultPage {
  products: PricedProduct[];
  /** how prices are shown: the display currency, per month or year, what was not converted */
  prices: PriceDisplay;
  /** the query string of the next page, or null on the last */
  nextHref: string | null;
  firstHref: string | null;
  /** the Atom feed and the CSV export of the same search */
  feedHref: string;
  csvHref: string;
  /** the matches, counted up to a cap (more: there are more than count) */
  count: { count: number; more: boolean } | null;
  /** the href of the same page without its filters */
  clearHref: string | null;
  /** the href of this page sorted by a page sort value (the table's headers) */
  sortHref(sort: string): string;
  /** what was wrong with the filters: shown instead of results */
  problems: string[];
  /** of a search that found nothing: the words no plan matches within the filters, and the search without them */
  unmatched: { words: string[]; insteadQuery: string; insteadHref: string } | null;
}

/** A page of results in one sentence, from what the visitor chose: the meta description search engines show. */
export function describeListing(filters: PageFilters, categories: Category[]): string {
  const parts = [filters.category ? `${categoryLabel(categories, filters.category)} plans` : 'Hosting plans'];
  if (filters.q) parts.push(`matching “${filters.q}”`);
  if (filters.location) parts.push(`in ${locationLabel(filters.location)}`);
  if (filters.feature) parts.push(`with ${filters.feature}`);
  // A page answering an invalid filter shows the values as sent: only a price that is one is described.
  if (filters.max_price !== undefined && /^\d{1,9}(\.\d{1,4})?$/.test(filters.max_price)) {
    parts.push(
      `for at most ${formatPrice(Number(filters.max_price), filters.display_currency ?? filters.currency ?? 'EUR')} a month`,
    );
  }
  return `${parts.join(' ')}, compared across providers, with specs and prices as each provider's billing system sends them.`;
}

/** When the provider's billing system last confirmed a listing, and whether that is too long ago. */
export function confirmation(item: { confirmed_at: string | null; stale: boolean }): Html {
  if (item.confirmed_at === null) return html`<span class="stale">Never confirmed by the provider</span>`;
  const when = html`<time datetime="${item.confirmed_at}" title="${item.confirmed_at}">${formatAgo(item.confirmed_at)}</time>`;
  return item.stale ? html`<span class="stale">Stale: last confirmed ${when}</span>` : html`Confirmed ${when}`;
}

export function priceDropMark(product: ListedProduct): Html | '' {
  const drop = product.price_drop;
  if (drop === null) return '';
  return html`<p><span class="drop">Price dropped</span> <span class="muted">from ${formatPrice(drop.previous_monthly_price, product.currency)} since <time datetime="${drop.since}">${formatDate(drop.since)}</time></span></p>`;
}

export function productCard(
  product: PricedProduct,
  categories: Category[],
  prices: PriceDisplay,
  showHost = true,
): Html {
  const specs = Object.entries(product.specs ?? {}).slice(0, 3);
  return html`<li class="card">
<h2><a href="/products/${encodeURIComponent(product.id)}${prices.carry}">${product.name}</a></h2>
<p class="compare-pick"><input type="checkbox" name="ids" value="${product.id}" id="cmp-${product.id}"> <label for="cmp-${product.id}">Compare<span class="visually-hidden"> ${product.name}</span></label></p>
<p class="muted">${showHost ? html`<a href="/hosts/${encodeURIComponent(product.host.slug)}">${product.host.name}</a> · ` : ''}${categoryLabel(categories, product.category)}</p>
${cardPrices(product, prices)}
${stockLine(product)}${priceDropMark(product)}
<p class="muted confirmed">${confirmation(product)}</p>
${specs.length > 0 ? html`<p class="muted">${specs.map(([key, value], i) => html`${i > 0 ? ' · ' : ''}${specLabel(key)}: ${value}`)}</p>` : ''}
${product.places.length > 0 ? html`<ul class="tags" aria-label="Locations">${product.places.slice(0, 4).map((place) => html`<li>${placeLabel(place)}</li>`)}</ul>` : ''}
</li>`;
}

/** The page's feed, announced only beside results: a search that found nothing has none to follow. */
export function feedOf(page: ResultPage): string | undefined {
  return page.products.length > 0 ? page.feedHref : undefined;
}

function takeAway(page: ResultPage): Html {
  return html`<p class="muted"><a href="${page.feedHref}" type="application/atom+xml">Atom feed of new plans and price drops</a> · <a href="${page.csvHref}" type="text/csv">Download all results as CSV</a></p>${watchSearchForm(page.feedHref)}`;
}

/**
 * What a page that found nothing says: which words no plan here matches, with the search without them; else that
 * the words only miss together, or that the filters leave nothing (with the way to clear them).
 */
function nothingFound(page: ResultPage, words: string | undefined): Html {
  const unmatched = page.unmatched;
  if (unmatched !== null) {
    const quoted = unmatched.words.map(
      (word, i) => html`${i === 0 ? '' : i === unmatched.words.length - 1 ? ' or ' : ', '}“${word}”`,
    );
    const instead =
      unmatched.insteadQuery === ''
        ? html`Search without ${quoted}`
        : html`Search for “${unmatched.insteadQuery}” instead`;
    return html`<p>No plan here matches ${quoted}. <a href="${unmatched.insteadHref}">${instead}</a>.</p>`;
  }
  if (page.clearHref !== null)
    return html`<p>No plan here matches all of these filters. <a href="${page.clearHref}">Clear the filters</a>, or loosen one.</p>`;
  if (words !== undefined) return html`<p>No plan here matches all of “${words}” at once. Try fewer words.</p>`;
  return html`<p>No plan is listed here yet.</p>`;
}

function countLine(page: ResultPage): Html {
  const counted = page.count;
  const what =
    counted === null
      ? ''
      : counted.more
        ? `More than ${formatCount(counted.count)} plans`
        : `${formatCount(counted.count)} ${counted.count === 1 ? 'plan' : 'plans'}`;
  return html`<div class="summary"><p class="count" role="status">${what}</p>${page.clearHref ? html`<p><a href="${page.clearHref}">Clear filters</a></p>` : ''}</div>`;
}

function problemsBox(problems: string[]): Html {
  return html`<div class="problem" role="alert"><h2>Some filters could not be used</h2><ul>${problems.map((problem) => html`<li>${problem}</li>`)}</ul><p>Correct them above, or clear the filters.</p></div>`;
}

export function resultList(
  page: ResultPage,
  categories: Category[],
  showHost = true,
  table: { columns: SpecKey[]; sort: string } | null = null,
  filters: PageFilters | null = null,
): Html {
  if (page.problems.length > 0)
    return html`${problemsBox(page.problems)}${page.clearHref ? html`<p><a href="${page.clearHref}">Clear filters</a></p>` : ''}`;
  // Nothing found: what to do next, without a feed or a note about prices that are not there.
  if (page.products.length === 0)
    return html`${countLine(page)}${nothingFound(page, filters?.q)}${watchSearchForm(page.feedHref)}`;
  const notes = currencyNotes(page.prices, filters?.max_price !== undefined);
  // The table's rows are the page's products: priced, as the cards are.
  const price = (product: ListedProduct) => cardPrices(product as PricedProduct, page.prices);
  const listing =
    table === null
      ? html`<ul class="grid">${page.products.map((product) => productCard(product, categories, page.prices, showHost))}</ul>`
      : resultTable(page.products, table.columns, { current: table.sort, hrefOf: page.sortHref }, price, showHost);
  return html`${countLine(page)}
${notes}
<form action="/compare" method="get" aria-label="Compare plans">
${page.prices.asked ? html`<input type="hidden" name="display_currency" value="${page.prices.asked}">` : ''}
${listing}
<p class="compare-bar"><button type="submit">Compare selected</button> <span class="muted">up to 4 plans</span></p>
</form>
<nav class="pager" aria-label="Pages">
${page.firstHref ? html`<a href="${page.firstHref}">First page</a> ` : ''}
${page.nextHref ? html`<a class="button" rel="next" href="${page.nextHref}">Next page</a>` : ''}
</nav>
${takeAway(page)}`;
}
