// The directory's pages, as functions from what the store returned to HTML.
import { COUNTRY_LABELS, placeOf } from '../catalog/gazetteer.js';
import {
  DISK_TYPES,
  FAMILY_SPECS,
  formatSpecValue,
  NUMERIC_SPECS,
  SPEC_LABELS,
  specFamily,
  type NumericSpec,
  type SpecKey,
} from '../catalog/specs.js';
import type { Category } from '../store/categories.js';
import type { FilterChoices } from '../store/directory/filter-choices.js';
import { CATEGORY_COUNT_CAP, type ListedCategory } from '../store/directory/listed-categories.js';
import type { ListedHost } from '../store/directory/listed-hosts.js';
import type { ListedProduct } from '../store/directory/listed-product.js';
import type { DirectorySort, SortOrder } from '../store/directory/search.js';
import type { PricePoint } from '../store/price-history.js';
import { resultTable, specPageSort, tableColumns } from './table.js';
import {
  formatAgo,
  formatCount,
  formatDate,
  formatDuration,
  formatPrice,
  periodLabel,
  periodSuffix,
  placeLabel,
  PRICE_ON_REQUEST,
  specLabel,
} from './format.js';
import type { PricedProduct } from '../http/listed-prices.js';
import { hostProfile, orderLink } from './host-profile.js';
import { cardPrices, costDetails, currencyNotes, headlineText, type PriceDisplay } from './prices.js';
import { html, queryString, type Html } from './html.js';
import { layout } from './layout.js';
import { priceChart } from './price-chart.js';

/** The sorts a visitor picks from, as one select: each is a sort and an order of the API. */
export const PAGE_SORTS = {
  price: { label: 'Price: low to high', sort: 'price', order: 'asc' },
  price_desc: { label: 'Price: high to low', sort: 'price', order: 'desc' },
  newest: { label: 'Newest first', sort: 'newest', order: 'desc' },
  name: { label: 'Name: A to Z', sort: 'name', order: 'asc' },
  name_desc: { label: 'Name: Z to A', sort: 'name', order: 'desc' },
} as const;
export type PageSort = keyof typeof PAGE_SORTS;

/** A page's sort value as the API's sort and order: one of PAGE_SORTS, or a table's `<spec>_asc` / `<spec>_desc`. */
export function pageSort(value: string): { sort: DirectorySort; order: SortOrder } | null {
  if (Object.hasOwn(PAGE_SORTS, value)) return PAGE_SORTS[value as PageSort];
  const spec = specPageSort(value);
  return spec ? { sort: spec.key, order: spec.order } : null;
}

/** What a visitor asked for, as the filter form shows it back (values as sent, so that a wrong one can be fixed). */
export interface PageFilters {
  q?: string;
  category?: string;
  location?: string;
  feature?: string;
  country?: string;
  disk_type?: string;
  max_price?: string;
  currency?: string;
  /** list stale providers' plans too */
  include_stale?: boolean;
  /** YYYY-MM-DD: only plans whose price dropped since that day */
  price_dropped_since?: string;
  /** min_<spec> and max_<spec> as sent */
  ranges?: Record<string, string>;
  view?: 'table';
  /** the currency prices are converted into */
  display_currency?: string;
  period?: 'year';
  sort: string;
}

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
function describeListing(filters: PageFilters, categories: Category[]): string {
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

function categoryLabel(categories: Category[], slug: string): string {
  return categories.find((category) => category.slug === slug)?.label ?? slug;
}

/** When the provider's billing system last confirmed a listing, and whether that is too long ago. */
export function confirmation(item: { confirmed_at: string | null; stale: boolean }): Html {
  if (item.confirmed_at === null) return html`<span class="stale">Never confirmed by the provider</span>`;
  const when = html`<time datetime="${item.confirmed_at}" title="${item.confirmed_at}">${formatAgo(item.confirmed_at)}</time>`;
  return item.stale ? html`<span class="stale">Stale: last confirmed ${when}</span>` : html`Confirmed ${when}`;
}

function priceDropMark(product: ListedProduct): Html | '' {
  const drop = product.price_drop;
  if (drop === null) return '';
  return html`<p><span class="drop">Price dropped</span> <span class="muted">from ${formatPrice(drop.previous_monthly_price, product.currency)} since <time datetime="${drop.since}">${formatDate(drop.since)}</time></span></p>`;
}

function productCard(product: PricedProduct, categories: Category[], prices: PriceDisplay, showHost = true): Html {
  const specs = Object.entries(product.specs ?? {}).slice(0, 3);
  return html`<li class="card">
<h2><a href="/products/${encodeURIComponent(product.id)}${prices.carry}">${product.name}</a></h2>
<p class="compare-pick"><input type="checkbox" name="ids" value="${product.id}" id="cmp-${product.id}"> <label for="cmp-${product.id}">Compare<span class="visually-hidden"> ${product.name}</span></label></p>
<p class="muted">${showHost ? html`<a href="/hosts/${encodeURIComponent(product.host.slug)}">${product.host.name}</a> · ` : ''}${categoryLabel(categories, product.category)}</p>
${cardPrices(product, prices)}
${priceDropMark(product)}
<p class="muted confirmed">${confirmation(product)}</p>
${specs.length > 0 ? html`<p class="muted">${specs.map(([key, value], i) => html`${i > 0 ? ' · ' : ''}${specLabel(key)}: ${value}`)}</p>` : ''}
${product.places.length > 0 ? html`<ul class="tags" aria-label="Locations">${product.places.slice(0, 4).map((place) => html`<li>${placeLabel(place)}</li>`)}</ul>` : ''}
</li>`;
}

/** The page's feed, announced only beside results: a search that found nothing has none to follow. */
function feedOf(page: ResultPage): string | undefined {
  return page.products.length > 0 ? page.feedHref : undefined;
}

function takeAway(page: ResultPage): Html {
  return html`<p class="muted"><a href="${page.feedHref}" type="application/atom+xml">Atom feed of new plans and price drops</a> · <a href="${page.csvHref}" type="text/csv">Download all results as CSV</a></p>`;
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

function resultList(
  page: ResultPage,
  categories: Category[],
  showHost = true,
  table: { columns: SpecKey[]; sort: string } | null = null,
  filters: PageFilters | null = null,
): Html {
  if (page.problems.length > 0)
    return html`${problemsBox(page.problems)}${page.clearHref ? html`<p><a href="${page.clearHref}">Clear filters</a></p>` : ''}`;
  // Nothing found: what to do next, without a feed or a note about prices that are not there.
  if (page.products.length === 0) return html`${countLine(page)}${nothingFound(page, filters?.q)}`;
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

/** The spec ranges a filter form offers: its family's numeric specs, and any other the visitor set. */
function rangeKeys(filters: PageFilters): NumericSpec[] {
  const family =
    filters.category === undefined ? ['cpu_cores', 'ram_gb', 'disk_gb'] : FAMILY_SPECS[specFamily(filters.category)];
  const keys = family.filter((key): key is NumericSpec => key in NUMERIC_SPECS);
  for (const name of Object.keys(filters.ranges ?? {})) {
    const key = name.slice(4) as NumericSpec;
    if (key in NUMERIC_SPECS && !keys.includes(key)) keys.push(key);
  }
  return keys;
}

function rangeFields(filters: PageFilters): Html {
  const unit = (key: NumericSpec) => (NUMERIC_SPECS[key].unit ? ` (${NUMERIC_SPECS[key].unit})` : '');
  return html`<fieldset class="ranges"><legend>Specs</legend>${rangeKeys(filters).map(
    (key) => html`<div class="range"><span class="range-name" id="r-${key}">${SPEC_LABELS[key]}${unit(key)}</span>
<label class="visually-hidden" for="f-min-${key}">${SPEC_LABELS[key]} at least</label><input id="f-min-${key}" name="min_${key}" inputmode="decimal" size="5" placeholder="min" value="${filters.ranges?.[`min_${key}`] ?? ''}">
<label class="visually-hidden" for="f-max-${key}">${SPEC_LABELS[key]} at most</label><input id="f-max-${key}" name="max_${key}" inputmode="decimal" size="5" placeholder="max" value="${filters.ranges?.[`max_${key}`] ?? ''}"></div>`,
  )}</fieldset>`;
}

function sortOptions(filters: PageFilters): Html {
  const spec = specPageSort(filters.sort);
  return html`${Object.entries(PAGE_SORTS).map(([value, sort]) => html`<option value="${value}"${selected(value, filters.sort)}>${sort.label}</option>`)}${
    spec
      ? html`<option value="${filters.sort}" selected>${SPEC_LABELS[spec.key]}: ${spec.order === 'asc' ? 'lowest first' : 'highest first'}</option>`
      : ''
  }`;
}

/** The filters a visitor set, each as it reads in the summary of the folded form ("RAM at least 8 GB"). */
function activeFilters(filters: PageFilters, categories: Category[] | null, prices: PriceDisplay): string[] {
  const active: string[] = [];
  if (categories !== null && filters.q) active.push(`“${filters.q}”`);
  if (categories !== null && filters.category) active.push(categoryLabel(categories, filters.category));
  if (filters.location) active.push(locationLabel(filters.location));
  if (filters.country) active.push(COUNTRY_LABELS.get(filters.country) ?? filters.country);
  if (filters.feature) active.push(filters.feature);
  if (filters.disk_type) active.push(formatSpecValue('disk_type', filters.disk_type));
  for (const [name, value] of Object.entries(filters.ranges ?? {})) {
    const key = name.slice(4) as NumericSpec;
    active.push(
      `${SPEC_LABELS[key]} ${name.startsWith('min_') ? 'at least' : 'at most'} ${value}${NUMERIC_SPECS[key].unit ? ` ${NUMERIC_SPECS[key].unit}` : ''}`,
    );
  }
  if (filters.max_price) active.push(`at most ${filters.max_price} ${prices.currency} a month`);
  if (filters.currency) active.push(`priced in ${filters.currency}`);
  if (filters.price_dropped_since) active.push(`price dropped since ${filters.price_dropped_since}`);
  if (filters.include_stale) active.push('stale providers included');
  if (filters.display_currency) active.push(`prices in ${prices.currency}`);
  if (filters.period === 'year') active.push('per year');
  if (filters.sort !== 'price') active.push(sortLabel(filters.sort));
  if (filters.view === 'table') active.push('table');
  return active;
}

function sortLabel(sort: string): string {
  if (Object.hasOwn(PAGE_SORTS, sort)) return PAGE_SORTS[sort as PageSort].label;
  const spec = specPageSort(sort);
  return spec ? `${SPEC_LABELS[spec.key]}: ${spec.order === 'asc' ? 'lowest first' : 'highest first'}` : sort;
}

/** A location filter as the choices name it: "Frankfurt, Germany" for "Frankfurt". */
function locationLabel(location: string): string {
  const place = placeOf(location);
  return place === null ? location : placeLabel({ location, city: place.city, country: place.country });
}

/** The location choices, each once by the place it names ("FRA" and "Frankfurt" are both Frankfurt, Germany). */
function locationOptions(locations: string[], current: string | undefined): Html {
  const seen = new Set<string>();
  const all = current && !locations.includes(current) ? [current, ...locations] : locations;
  const named = all.flatMap((location) => {
    const label = locationLabel(location);
    if (seen.has(label) && location !== current) return [];
    seen.add(label);
    return [{ location, label }];
  });
  named.sort((a, b) => a.label.localeCompare(b.label, 'en'));
  return html`<option value="">Any location</option>${named.map(({ location, label }) => html`<option value="${location}"${selected(location, current)}>${label}</option>`)}`;
}

/**
 * The filter form, folded behind a summary of what is set: on a phone the results come first. It opens by itself when
 * a filter needs correcting.
 */
function filterForm(
  action: string,
  filters: PageFilters,
  choices: FilterChoices,
  categories: Category[] | null,
  page: ResultPage,
  displayChoices: string[],
): Html {
  const active = activeFilters(filters, categories, page.prices);
  return html`<details class="filters-fold"${page.problems.length > 0 ? html` open` : ''}>
<summary>Filters and sort <span class="muted">${active.length === 0 ? '· none set' : `· ${active.join(' · ')}`}</span></summary>
${filterFields(action, filters, choices, categories, page.prices, displayChoices)}
</details>`;
}

function filterFields(
  action: string,
  filters: PageFilters,
  choices: FilterChoices,
  categories: Category[] | null,
  prices: PriceDisplay,
  displayChoices: string[],
): Html {
  const countries =
    choices.countries.includes(filters.country ?? '') || !filters.country
      ? choices.countries
      : [filters.country, ...choices.countries];
  return html`<form class="filters" action="${action}" method="get" aria-label="Filters">
${
  categories === null
    ? filters.q
      ? html`<input type="hidden" name="q" value="${filters.q}">`
      : ''
    : html`${field('f-q', 'Words', html`<input id="f-q" type="search" name="q" value="${filters.q ?? ''}" maxlength="200">`)}
${field('f-category', 'Category', html`<select id="f-category" name="category"><option value="">Any category</option>${categories.map((category) => html`<option value="${category.slug}"${selected(category.slug, filters.category)}>${category.label}</option>`)}</select>`)}`
}
${field('f-location', 'Location', html`<select id="f-location" name="location">${locationOptions(choices.locations, filters.location)}</select>`)}
${field('f-country', 'Country', html`<select id="f-country" name="country"><option value="">Any country</option>${countries.map((code) => html`<option value="${code}"${selected(code, filters.country)}>${COUNTRY_LABELS.get(code) ?? code}</option>`)}</select>`)}
${field('f-feature', 'Feature', html`<select id="f-feature" name="feature">${options(choices.features, filters.feature, 'Any feature')}</select>`)}
${field('f-disk', 'Disk type', html`<select id="f-disk" name="disk_type"><option value="">Any disk</option>${[...DISK_TYPES, ...(filters.disk_type && !(DISK_TYPES as readonly string[]).includes(filters.disk_type) ? [filters.disk_type] : [])].map((type) => html`<option value="${type}"${selected(type, filters.disk_type)}>${formatSpecValue('disk_type', type)}</option>`)}</select>`)}
${field('f-max', `Max. per month (${prices.currency})`, html`<input id="f-max" type="number" name="max_price" min="0" step="0.01" inputmode="decimal" value="${filters.max_price ?? ''}" size="7">`)}
${field('f-currency', 'Priced in', html`<select id="f-currency" name="currency">${options(choices.currencies, filters.currency, 'Any currency')}</select>`)}
${field('f-display', 'Show prices in', html`<select id="f-display" name="display_currency">${displayChoices.map((code) => html`<option value="${code}"${selected(code, prices.currency)}>${code}</option>`)}</select>`)}
${field('f-period', 'Prices per', html`<select id="f-period" name="period"><option value="month">Month</option><option value="year"${selected('year', filters.period)}>Year</option></select>`)}
${field('f-dropped', 'Price dropped since', html`<input id="f-dropped" type="date" name="price_dropped_since" value="${filters.price_dropped_since ?? ''}">`)}
<div class="field check"><input id="f-stale" type="checkbox" name="include_stale" value="1"${filters.include_stale ? html` checked` : ''}><label for="f-stale">Include stale providers</label></div>
${field('f-sort', 'Sort', html`<select id="f-sort" name="sort">${sortOptions(filters)}</select>`)}
${field('f-view', 'View', html`<select id="f-view" name="view"><option value="">Cards</option><option value="table"${filters.view === 'table' ? html` selected` : ''}>Table</option></select>`)}
${rangeFields(filters)}
<button type="submit">Apply</button>
</form>`;
}

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
${keySpecs(product)}
${orderLink(product)}
${costDetails(product)}
${tiers.length > 0 ? html`<table><caption class="visually-hidden">Prices by billing period</caption><thead><tr><th scope="col">Billing period</th><th scope="col">Price</th></tr></thead><tbody>${tiers.map((tier) => html`<tr><td>${periodLabel(tier)}</td><td>${formatPrice(tier.price, product.currency)} <span class="muted">${periodSuffix(tier)}</span></td></tr>`)}</tbody></table>` : ''}
<p>Minimum term: ${product.contract_duration === null ? 'not stated' : formatDuration(product.contract_duration)}</p>
${priceDropMark(product)}
<p class="muted confirmed">${confirmation(product)}</p>
<p class="muted">Content last changed <time datetime="${product.updated_at}">${formatDate(product.updated_at)}</time></p>
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
