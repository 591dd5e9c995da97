// The directory's pages, as functions from what the store returned to HTML.
import type { Category } from '../store/categories.js';
import type { FilterChoices, ListedCategory, ListedHost } from '../store/directory.js';
import type { PricedProduct } from '../http/listed-prices.js';
import { CATEGORY_COUNT_CAP } from '../store/directory.js';
import { formatDate, formatDuration, formatPrice, periodLabel, periodSuffix, specLabel } from './format.js';
import { hostProfile, orderLink } from './host-profile.js';
import { cardPrices, currencyNotes, headlineText, productCost, type PriceDisplay } from './prices.js';
import { html, queryString, type Html } from './html.js';
import { layout } from './layout.js';

/** The sorts a visitor picks from, as one select: each is a sort and an order of the API. */
export const PAGE_SORTS = {
  price: { label: 'Price: low to high', sort: 'price', order: 'asc' },
  price_desc: { label: 'Price: high to low', sort: 'price', order: 'desc' },
  newest: { label: 'Newest first', sort: 'newest', order: 'desc' },
  name: { label: 'Name: A to Z', sort: 'name', order: 'asc' },
  name_desc: { label: 'Name: Z to A', sort: 'name', order: 'desc' },
} as const;
export type PageSort = keyof typeof PAGE_SORTS;

/** What a visitor asked for, as the filter form shows it back. */
export interface PageFilters {
  q?: string;
  category?: string;
  location?: string;
  feature?: string;
  max_price?: string;
  /** only plans priced in this currency */
  currency?: string;
  /** the currency prices are converted into */
  display_currency?: string;
  period?: 'year';
  sort: PageSort;
}

export interface ResultPage {
  products: PricedProduct[];
  prices: PriceDisplay;
  /** the query string of the next page, or null on the last */
  nextHref: string | null;
  firstHref: string | null;
}

/** A page of results in one sentence, from what the visitor chose: the meta description search engines show. */
function describeListing(filters: PageFilters, categories: Category[]): string {
  const parts = [filters.category ? `${categoryLabel(categories, filters.category)} plans` : 'Hosting plans'];
  if (filters.q) parts.push(`matching “${filters.q}”`);
  if (filters.location) parts.push(`in ${filters.location}`);
  if (filters.feature) parts.push(`with ${filters.feature}`);
  if (filters.max_price !== undefined) parts.push(`for at most ${formatPrice(Number(filters.max_price), filters.currency ?? 'USD')} a month`);
  return `${parts.join(' ')}, compared across providers, with specs and prices as each provider's billing system sends them.`;
}

function categoryLabel(categories: Category[], slug: string): string {
  return categories.find((category) => category.slug === slug)?.label ?? slug;
}

function productCard(product: PricedProduct, categories: Category[], prices: PriceDisplay, showHost = true): Html {
  const specs = Object.entries(product.specs ?? {}).slice(0, 3);
  return html`<li class="card">
<h2><a href="/products/${encodeURIComponent(product.id)}${prices.carry}">${product.name}</a></h2>
<p class="muted">${showHost ? html`<a href="/hosts/${encodeURIComponent(product.host.slug)}">${product.host.name}</a> · ` : ''}${categoryLabel(categories, product.category)}</p>
${cardPrices(product, prices)}
${specs.length > 0 ? html`<p class="muted">${specs.map(([key, value], i) => html`${i > 0 ? ' · ' : ''}${specLabel(key)}: ${value}`)}</p>` : ''}
${product.datacenter_locations?.length ? html`<ul class="tags" aria-label="Locations">${product.datacenter_locations.slice(0, 4).map((location) => html`<li>${location}</li>`)}</ul>` : ''}
</li>`;
}

function resultList(page: ResultPage, categories: Category[], showHost = true, maxPriceGiven = false): Html {
  const notes = currencyNotes(page.prices, maxPriceGiven);
  if (page.products.length === 0) return html`${notes}<p>No products match. Try fewer filters.</p>`;
  return html`${notes}<ul class="grid">${page.products.map((product) => productCard(product, categories, page.prices, showHost))}</ul>
<nav class="pager" aria-label="Pages">
${page.firstHref ? html`<a href="${page.firstHref}">First page</a> ` : ''}
${page.nextHref ? html`<a class="button" rel="next" href="${page.nextHref}">Next page</a>` : ''}
</nav>`;
}

function options(values: string[], current: string | undefined, anyLabel: string): Html {
  const all = current && !values.includes(current) ? [current, ...values] : values;
  return html`<option value="">${anyLabel}</option>${all.map((value) => html`<option value="${value}"${selected(value, current)}>${value}</option>`)}`;
}

/** A labelled control: the label names only the control, never the control's current value. */
function field(id: string, label: string, control: Html): Html {
  return html`<div class="field"><label for="${id}">${label}</label>${control}</div>`;
}

function selected(value: string, current: string | undefined): Html | '' {
  return value === current ? html` selected` : '';
}

function filterForm(action: string, filters: PageFilters, choices: FilterChoices, categories: Category[] | null, prices: PriceDisplay, displayChoices: string[]): Html {
  return html`<form class="filters" action="${action}" method="get" aria-label="Filters">
${categories === null
    ? (filters.q ? html`<input type="hidden" name="q" value="${filters.q}">` : '')
    : html`${field('f-q', 'Words', html`<input id="f-q" type="search" name="q" value="${filters.q ?? ''}" maxlength="200">`)}
${field('f-category', 'Category', html`<select id="f-category" name="category"><option value="">Any category</option>${categories.map((category) => html`<option value="${category.slug}"${selected(category.slug, filters.category)}>${category.label}</option>`)}</select>`)}`}
${field('f-location', 'Location', html`<select id="f-location" name="location">${options(choices.locations, filters.location, 'Any location')}</select>`)}
${field('f-feature', 'Feature', html`<select id="f-feature" name="feature">${options(choices.features, filters.feature, 'Any feature')}</select>`)}
${field('f-max', `Max. per month (${prices.currency})`, html`<input id="f-max" type="number" name="max_price" min="0" step="0.01" inputmode="decimal" value="${filters.max_price ?? ''}" size="7">`)}
${field('f-currency', 'Priced in', html`<select id="f-currency" name="currency">${options(choices.currencies, filters.currency, 'Any currency')}</select>`)}
${field('f-display', 'Show prices in', html`<select id="f-display" name="display_currency">${displayChoices.map((code) => html`<option value="${code}"${selected(code, prices.currency)}>${code}</option>`)}</select>`)}
${field('f-period', 'Prices per', html`<select id="f-period" name="period"><option value="month">Month</option><option value="year"${selected('year', filters.period)}>Year</option></select>`)}
${field('f-sort', 'Sort', html`<select id="f-sort" name="sort">${Object.entries(PAGE_SORTS).map(([value, sort]) => html`<option value="${value}"${selected(value, filters.sort)}>${sort.label}</option>`)}</select>`)}
<button type="submit">Apply</button>
</form>`;
}

export function homePage(categories: ListedCategory[], hosts: ListedHost[]): Html {
  const listed = categories.filter((category) => category.product_count > 0);
  return layout(
    { title: 'Hosting plans from every provider', description: 'Compare hosting plans that providers sync straight from their billing systems.' },
    html`<h1>Find hosting, compared across providers</h1>
<form role="search" action="/search" method="get" class="filters">
<div class="field grow"><label for="home-search">Search all products</label><input id="home-search" type="search" name="q" placeholder="e.g. nvme vps frankfurt" maxlength="200"></div>
<button type="submit">Search</button>
</form>
<section aria-labelledby="categories"><h2 id="categories">Categories</h2>
${listed.length === 0
    ? html`<p>No provider has synced a catalogue yet. Run <code>hostdir seed-demo</code> to fill the directory with examples.</p>`
    : html`<ul class="grid">${listed.map((category) => html`<li class="card"><h3><a href="/categories/${encodeURIComponent(category.slug)}">${category.label}</a></h3><p class="muted">${category.product_count >= CATEGORY_COUNT_CAP ? `${CATEGORY_COUNT_CAP}+` : category.product_count} ${category.product_count === 1 ? 'plan' : 'plans'}</p></li>`)}</ul>`}
</section>
<section aria-labelledby="hosts"><h2 id="hosts">Providers</h2>
<ul class="tags">${hosts.map((host) => html`<li><a href="/hosts/${encodeURIComponent(host.slug)}">${host.name}</a></li>`)}</ul>
<p><a href="/hosts">All providers</a></p>
</section>`,
  );
}

export function hostsPage(hosts: ListedHost[], nextHref: string | null): Html {
  return layout(
    { title: 'Providers', description: 'Every hosting provider listed in hostdir, with the number of plans each syncs from its billing system.' },
    html`<h1>Providers</h1>
${hosts.length === 0 ? html`<p>No provider is listed yet.</p>` : html`<ul class="grid">${hosts.map((host) => html`<li class="card"><h2><a href="/hosts/${encodeURIComponent(host.slug)}">${host.name}</a></h2>
<p class="muted">${host.product_count} ${host.product_count === 1 ? 'plan' : 'plans'}${host.last_synced_at ? ` · updated ${formatDate(host.last_synced_at)}` : ''}</p></li>`)}</ul>`}
${nextHref ? html`<nav class="pager" aria-label="Pages"><a class="button" rel="next" href="${nextHref}">Next page</a></nav>` : ''}`,
  );
}

export function hostPage(host: ListedHost, page: ResultPage, categories: Category[]): Html {
  return layout(
    { title: host.name, description: `${host.name}: ${host.product_count} hosting plans` },
    html`<h1>${host.name}</h1>
<p class="muted">${host.product_count} ${host.product_count === 1 ? 'plan' : 'plans'} listed${host.last_synced_at ? html` · catalogue synced <time datetime="${host.last_synced_at}">${formatDate(host.last_synced_at)}</time>` : ''}</p>
${hostProfile(host)}
${resultList(page, categories, false)}`,
  );
}

export function categoryPage(category: Category, filters: PageFilters, choices: FilterChoices, page: ResultPage, categories: Category[], displayChoices: string[]): Html {
  return layout(
    { title: category.label, description: describeListing(filters, categories) },
    html`<h1>${category.label}</h1>
${filterForm(`/categories/${encodeURIComponent(category.slug)}`, filters, choices, null, page.prices, displayChoices)}
${resultList(page, categories, true, filters.max_price !== undefined)}`,
  );
}

export function searchPage(filters: PageFilters, choices: FilterChoices, page: ResultPage, categories: Category[], displayChoices: string[]): Html {
  const heading = filters.q ? html`Results for “${filters.q}”` : html`Search products`;
  return layout(
    { title: filters.q ? `“${filters.q}”` : 'Search', description: describeListing(filters, categories), query: filters.q ?? '' },
    html`<h1>${heading}</h1>
${filterForm('/search', filters, choices, categories, page.prices, displayChoices)}
${resultList(page, categories, true, filters.max_price !== undefined)}`,
  );
}

export function productPage(product: PricedProduct, categories: Category[], prices: PriceDisplay): Html {
  const tiers = product.pricing_tiers ?? [];
  const specs = Object.entries(product.specs ?? {});
  return layout(
    { title: `${product.name} by ${product.host.name}`, description: `${product.name}: ${headlineText(product)}` },
    html`<p class="muted"><a href="/categories/${encodeURIComponent(product.category)}">${categoryLabel(categories, product.category)}</a></p>
<h1>${product.name}</h1>
<p>by <a href="/hosts/${encodeURIComponent(product.host.slug)}">${product.host.name}</a></p>
<div class="layout">
<div>
${product.description ? html`<p class="description">${product.description}</p>` : ''}
<h2>Specifications</h2>
${specs.length > 0 ? html`<table><caption class="visually-hidden">Specifications</caption><tbody>${specs.map(([key, value]) => html`<tr><th scope="row">${specLabel(key)}</th><td>${value}</td></tr>`)}</tbody></table>` : html`<p class="muted">The provider lists no specifications.</p>`}
<h2>Features</h2>
${product.features?.length ? html`<ul>${product.features.map((feature) => html`<li>${feature}</li>`)}</ul>` : html`<p class="muted">None listed.</p>`}
<h2>Datacenter locations</h2>
${product.datacenter_locations?.length ? html`<ul>${product.datacenter_locations.map((location) => html`<li>${location}</li>`)}</ul>` : html`<p class="muted">None listed.</p>`}
</div>
<aside aria-labelledby="pricing" class="card">
<h2 id="pricing">Pricing</h2>
${productCost(product, prices)}
${orderLink(product)}
${tiers.length > 0 ? html`<table><caption class="visually-hidden">Prices by billing period</caption><thead><tr><th scope="col">Billing period</th><th scope="col">Price</th></tr></thead><tbody>${tiers.map((tier) => html`<tr><td>${periodLabel(tier)}</td><td>${formatPrice(tier.price, product.currency)} <span class="muted">${periodSuffix(tier)}</span></td></tr>`)}</tbody></table>` : ''}
<p>Minimum term: ${product.contract_duration === null ? 'not stated' : formatDuration(product.contract_duration)}</p>
<p class="muted">Updated <time datetime="${product.updated_at}">${formatDate(product.updated_at)}</time></p>
</aside>
</div>`,
  );
}

export function notFoundPage(what: string): Html {
  return layout(
    { title: 'Not found', description: 'This page is not in the directory of hosting plans.' },
    html`<h1>Not found</h1><p>${what}</p><p><a href="/">Back to the directory</a> or search above.</p>`,
  );
}

export function badRequestPage(what: string): Html {
  return layout({ title: 'Bad request', description: 'This link to the directory of hosting plans is out of date.' }, html`<h1>That request did not work</h1><p>${what}</p><p><a href="/">Back to the directory</a></p>`);
}

export { queryString };
