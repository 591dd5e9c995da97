// The directory's pages, as functions from what the store returned to HTML.
import { FAMILY_SPECS, formatSpecValue, SPEC_LABELS, specFamily, type SpecKey } from '../catalog/specs.js';
import type { PricedProduct } from '../http/listed-prices.js';
import type { Category } from '../store/categories.js';
import type { FilterChoices } from '../store/directory/filter-choices.js';
import { CATEGORY_COUNT_CAP, type ListedCategory } from '../store/directory/listed-categories.js';
import type { ListedHost } from '../store/directory/listed-hosts.js';
import type { ListedProduct } from '../store/directory/listed-product.js';
import type { PricePoint } from '../store/price-history.js';
import { filterForm } from './filter-form.js';
import {
  formatDate,
  formatDuration,
  formatPrice,
  periodLabel,
  periodSuffix,
  placeLabel,
  PRICE_ON_REQUEST,
  specLabel,
} from './format.js';
import { hostProfile, orderLink } from './host-profile.js';
import { html, queryString, type Html } from './html.js';
import { layout } from './layout.js';
import { watchProductForm } from './watch-pages.js';
import { type PageFilters, categoryLabel } from './page-filters.js';
import { alternativesSection } from './alternatives.js';
import { priceChart } from './price-chart.js';
import { cardPrices, costDetails, headlineText, type PriceDisplay } from './prices.js';
import { type ResultPage, confirmation, describeListing, feedOf, priceDropMark, resultList } from './result-list.js';
import { stockLine } from './stock.js';
import { tableColumns } from './table.js';

export function homePage(categories: ListedCategory[], hosts: ListedHost[]): Html {
  const listed = categories.filter((category) => category.product_count > 0);
  return layout(
    {
      title: 'Hosting plans from every provider',
      description: 'Compare hosting plans that providers sync straight from their billing systems.',
    },
    html`<h1>Find hosting, compared across providers</h1>
<form role="search" action="/search" method="get" class="filters" aria-label="Search the directory">
<div class="field grow"><label for="home-search">Search all products</label><input id="home-search" type="search" name="q" placeholder="e.g. nvme vps frankfurt" maxlength="200"></div>
<button type="submit">Search</button>
</form>
<section aria-labelledby="categories"><h2 id="categories">Categories</h2>
${
  listed.length === 0
    ? html`<p>No provider has synced a catalogue yet. Run <code>hostdir seed-demo</code> to fill the directory with examples.</p>`
    : html`<ul class="grid">${listed.map((category) => html`<li class="card"><h3><a href="/categories/${encodeURIComponent(category.slug)}">${category.label}</a></h3><p class="muted">${category.product_count >= CATEGORY_COUNT_CAP ? `${CATEGORY_COUNT_CAP}+` : category.product_count} ${category.product_count === 1 ? 'plan' : 'plans'}</p></li>`)}</ul>`
}
</section>
<section aria-labelledby="hosts"><h2 id="hosts">Providers</h2>
<ul class="tags">${hosts.map((host) => html`<li><a href="/hosts/${encodeURIComponent(host.slug)}">${host.name}</a></li>`)}</ul>
<p><a href="/hosts">All providers</a></p>
</section>`,
  );
}

export function hostsPage(hosts: ListedHost[], nextHref: string | null): Html {
  return layout(
    {
      title: 'Providers',
      description:
        'Every hosting provider listed in hostdir, with the number of plans each syncs from its billing system.',
    },
    html`<h1>Providers</h1>
${
  hosts.length === 0
    ? html`<p>No provider is listed yet.</p>`
    : html`<ul class="grid">${hosts.map(
        (host) => html`<li class="card"><h2><a href="/hosts/${encodeURIComponent(host.slug)}">${host.name}</a></h2>
<p class="muted">${host.product_count} ${host.product_count === 1 ? 'plan' : 'plans'} · ${confirmation(host)}</p></li>`,
      )}</ul>`
}
${nextHref ? html`<nav class="pager" aria-label="Pages"><a class="button" rel="next" href="${nextHref}">Next page</a></nav>` : ''}`,
  );
}

/** Said on every page of a stale provider: its plans are left out of searches until it syncs again. */
function staleNotice(name: string, stale: boolean): Html | '' {
  return stale
    ? html`<p class="notice" role="note"><strong>Stale listing.</strong> ${name}'s billing system has not confirmed this catalogue recently: prices and plans may have changed. Its plans are left out of searches until it syncs again.</p>`
    : '';
}

export function hostPage(host: ListedHost, page: ResultPage, categories: Category[]): Html {
  return layout(
    { title: host.name, description: `${host.name}: ${host.product_count} hosting plans`, feed: feedOf(page) },
    html`<h1>${host.name}</h1>
${staleNotice(host.name, host.stale)}
<p class="muted">${host.product_count} ${host.product_count === 1 ? 'plan' : 'plans'} listed · ${confirmation(host)}</p>
${hostProfile(host)}
${resultList(page, categories, false)}`,
  );
}

function tableOf(filters: PageFilters): { columns: SpecKey[]; sort: string } | null {
  return filters.view === 'table' ? { columns: tableColumns(filters.category), sort: filters.sort } : null;
}

/** The way back: the directory's home, and the category a search is narrowed to. */
function breadcrumb(trail: Html): Html {
  return html`<nav aria-label="Breadcrumb" class="breadcrumb"><a href="/">All categories</a> › ${trail}</nav>`;
}

export function categoryPage(
  category: Category,
  filters: PageFilters,
  choices: FilterChoices,
  page: ResultPage,
  categories: Category[],
  displayChoices: string[],
): Html {
  return layout(
    { title: category.label, description: describeListing(filters, categories), feed: feedOf(page) },
    html`${breadcrumb(html`<span>${category.label}</span>`)}
<h1>${category.label}</h1>
${filterForm(`/categories/${encodeURIComponent(category.slug)}`, filters, choices, null, page, displayChoices)}
${resultList(page, categories, true, tableOf(filters), filters)}`,
  );
}

export function searchPage(
  filters: PageFilters,
  choices: FilterChoices,
  page: ResultPage,
  categories: Category[],
  displayChoices: string[],
): Html {
  const heading = filters.q ? html`Results for “${filters.q}”` : html`Search products`;
  return layout(
    {
      title: filters.q ? `“${filters.q}”` : 'Search',
      description: describeListing(filters, categories),
      query: filters.q ?? '',
      feed: feedOf(page),
    },
    html`${breadcrumb(html`<span>Search</span>`)}
<h1>${heading}</h1>
${filterForm('/search', filters, choices, categories, page, displayChoices)}
${resultList(page, categories, true, tableOf(filters), filters)}`,
  );
}

/** The price history: the chart, and the same points as a table. */
function priceHistorySection(product: ListedProduct, history: { points: PricePoint[]; truncated: boolean }): Html {
  const chart = priceChart(history.points, product.currency, new Date().toISOString());
  const rows = [...history.points].reverse();
  return html`<section aria-labelledby="price-history"><h2 id="price-history">Price history</h2>
${history.points.length === 1 ? html`<p class="muted">The price has not changed since the plan was listed.</p>` : ''}
${chart ?? ''}
<table><caption class="visually-hidden">Monthly price over time</caption><thead><tr><th scope="col">From</th><th scope="col">Monthly price</th><th scope="col">Setup fee</th></tr></thead><tbody>${rows.map((point) => html`<tr><td><time datetime="${point.from}">${formatDate(point.from)}</time>${point.to === null ? ' (now)' : ''}</td><td>${point.monthly_price === null ? PRICE_ON_REQUEST : formatPrice(point.monthly_price, point.currency)}</td><td>${point.setup_fee === null ? '—' : formatPrice(point.setup_fee, point.currency)}</td></tr>`)}</tbody></table>
${history.truncated ? html`<p class="muted">Older changes are no longer kept.</p>` : ''}
</section>`;
}

export function productPage(
  product: PricedProduct,
  categories: Category[],
  prices: PriceDisplay,
  history: { points: PricePoint[]; truncated: boolean } | null = null,
  alternatives: { products: PricedProduct[]; carry: string } | null = null,
): Html {
  const tiers = product.pricing_tiers ?? [];
  const specs = Object.entries(product.specs ?? {});
  return layout(
    { title: `${product.name} by ${product.host.name}`, description: `${product.name}: ${headlineText(product)}` },
    html`<p class="muted"><a href="/categories/${encodeURIComponent(product.category)}">${categoryLabel(categories, product.category)}</a></p>
<h1>${product.name}</h1>
<p>by <a href="/hosts/${encodeURIComponent(product.host.slug)}">${product.host.name}</a></p>
${staleNotice(product.host.name, product.stale)}
<div class="layout">
<aside aria-labelledby="pricing" class="card">
<h2 id="pricing">Pricing</h2>
${cardPrices(product, { ...prices, period: 'month' })}
${stockLine(product)}${keySpecs(product)}
${orderLink(product)}
${costDetails(product)}
${tiers.length > 0 ? html`<table><caption class="visually-hidden">Prices by billing period</caption><thead><tr><th scope="col">Billing period</th><th scope="col">Price</th></tr></thead><tbody>${tiers.map((tier) => html`<tr><td>${periodLabel(tier)}</td><td>${formatPrice(tier.price, product.currency)} <span class="muted">${periodSuffix(tier)}</span></td></tr>`)}</tbody></table>` : ''}
<p>Minimum term: ${product.contract_duration === null ? 'not stated' : formatDuration(product.contract_duration)}</p>
${priceDropMark(product)}
<p class="muted confirmed">${confirmation(product)}</p>
<p class="muted">Content last changed <time datetime="${product.updated_at}">${formatDate(product.updated_at)}</time></p>
${watchProductForm(product.id)}
</aside>
<div class="details">
${product.description ? html`<p class="description">${product.description}</p>` : ''}
<h2>Specifications</h2>
${comparableSpecs(product)}
${specs.length > 0 ? html`<table><caption class="visually-hidden">Specifications</caption><tbody>${specs.map(([key, value]) => html`<tr><th scope="row">${specLabel(key)}</th><td>${value}</td></tr>`)}</tbody></table>` : html`<p class="muted">The provider lists no specifications.</p>`}
<h2>Features</h2>
${product.features?.length ? html`<ul>${product.features.map((feature) => html`<li>${feature}</li>`)}</ul>` : html`<p class="muted">None listed.</p>`}
<h2>Datacenter locations</h2>
${product.places.length ? html`<ul>${product.places.map((place) => html`<li>${placeLabel(place)}${place.city !== null && place.city !== place.location ? html` <span class="muted">(listed as “${place.location}”)</span>` : ''}</li>`)}</ul>` : html`<p class="muted">None listed.</p>`}
${alternatives ? alternativesSection(product, alternatives.products, alternatives.carry) : ''}
${history ? priceHistorySection(product, history) : ''}
</div>
</div>`,
  );
}

/** The few specs a plan is chosen by (its family's first, as far as it gives them), beside its price. */
function keySpecs(product: ListedProduct): Html | '' {
  const keys = FAMILY_SPECS[specFamily(product.category)]
    .filter((key) => product.comparable_specs[key] !== undefined)
    .slice(0, 4);
  if (keys.length === 0) return '';
  return html`<ul class="keyspecs" aria-label="Key specs">${keys.map((key) => html`<li><span class="muted">${SPEC_LABELS[key]}</span> ${formatSpecValue(key, product.comparable_specs[key]!)}</li>`)}</ul>`;
}

/** The product's specs read as the vocabulary, beside the provider's own (shown as sent below them). */
function comparableSpecs(product: ListedProduct): Html {
  const keys = (Object.keys(SPEC_LABELS) as SpecKey[]).filter((key) => product.comparable_specs[key] !== undefined);
  if (keys.length === 0) return '' as unknown as Html;
  return html`<table class="comparable"><caption>Compared as</caption><tbody>${keys.map((key) => html`<tr><th scope="row">${SPEC_LABELS[key]}</th><td>${formatSpecValue(key, product.comparable_specs[key]!)}</td></tr>`)}</tbody></table>
<p class="muted">As the provider lists them:</p>`;
}

export function notFoundPage(what: string): Html {
  return layout(
    { title: 'Not found', description: 'This page is not in the directory of hosting plans.' },
    html`<h1>Not found</h1><p>${what}</p><p><a href="/">Back to the directory</a> or search above.</p>`,
  );
}

export function unavailablePage(what: string): Html {
  return layout(
    {
      title: 'Try again in a moment',
      description: 'The directory of hosting plans could not answer this page just now.',
    },
    html`<h1>Try again in a moment</h1><p>${what}</p><p><a href="">Load this page again</a> in a few seconds, or go <a href="/">back to the directory</a>.</p>`,
  );
}

export function badRequestPage(what: string): Html {
  return layout(
    { title: 'Bad request', description: 'This link to the directory of hosting plans is out of date.' },
    html`<h1>That request did not work</h1><p>${what}</p><p><a href="/">Back to the directory</a></p>`,
  );
}

export { queryString };
