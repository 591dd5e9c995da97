// The filter form of a listing page, and the filters it shows as set.

import { COUNTRY_LABELS } from '../catalog/gazetteer.js';
import {
  DISK_TYPES,
  FAMILY_SPECS,
  formatSpecValue,
  NUMERIC_SPECS,
  SPEC_LABELS,
  specFamily,
  type NumericSpec,
} from '../catalog/specs.js';
import type { Category } from '../store/categories.js';
import type { FilterChoices } from '../store/directory/filter-choices.js';
import { html, type Html } from './html.js';
import { PAGE_SORTS, type PageFilters, type PageSort, categoryLabel, locationLabel } from './page-filters.js';
import type { PriceDisplay } from './prices.js';
import type { ResultPage } from './result-list.js';
import { specPageSort } from './table.js';

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
  if (filters.in_stock) active.push('in stock only');
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
export function filterForm(
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
<div class="field check"><input id="f-stock" type="checkbox" name="in_stock" value="1"${filters.in_stock ? html` checked` : ''}><label for="f-stock">In stock only</label></div>
${field('f-sort', 'Sort', html`<select id="f-sort" name="sort">${sortOptions(filters)}</select>`)}
${field('f-view', 'View', html`<select id="f-view" name="view"><option value="">Cards</option><option value="table"${filters.view === 'table' ? html` selected` : ''}>Table</option></select>`)}
${rangeFields(filters)}
<button type="submit">Apply</button>
</form>`;
}
