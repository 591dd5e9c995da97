// The compare page: up to four plans side by side, their normalized specs as rows, then what each provider lists.
import { COUNTRY_LABELS } from '../catalog/gazetteer.js';
import { formatSpecValue, SPEC_LABELS, type SpecKey } from '../catalog/specs.js';
import type { Category } from '../store/categories.js';
import type { ListedProduct } from '../store/directory/listed-product.js';
import { formatDuration, formatPrice } from './format.js';
import { html, queryString, type Html } from './html.js';
import { layout } from './layout.js';

/** The most plans compared at once: more columns do not fit a screen, nor a decision. */
export const COMPARE_MAX = 4;

/** One row of a comparison: a label and each plan's value as text (null: the plan does not say). */
export interface CompareRow {
  key: string;
  label: string;
  values: (string | null)[];
}

const monthly = (product: ListedProduct) => (product.monthly_price === null ? null : formatPrice(product.monthly_price, product.currency));

/** The rows of a comparison, the same for the page and the JSON: prices and terms, then each spec any plan gives. */
export function compareRows(products: ListedProduct[], categories: Category[]): CompareRow[] {
  const label = (slug: string) => categories.find((category) => category.slug === slug)?.label ?? slug;
  const rows: CompareRow[] = [
    { key: 'provider', label: 'Provider', values: products.map((p) => p.host.name) },
    { key: 'category', label: 'Category', values: products.map((p) => label(p.category)) },
    { key: 'monthly_price', label: 'Per month', values: products.map(monthly) },
    {
      key: 'setup_fee',
      label: 'Setup fee',
      values: products.map((p) => (p.setup_fee === null ? null : p.setup_fee === 0 ? 'free' : formatPrice(p.setup_fee, p.currency))),
    },
    { key: 'contract_duration', label: 'Minimum term', values: products.map((p) => (p.contract_duration === null ? null : formatDuration(p.contract_duration))) },
  ];
  for (const key of Object.keys(SPEC_LABELS) as SpecKey[]) {
    if (!products.some((p) => p.comparable_specs[key] !== undefined)) continue;
    rows.push({
      key,
      label: SPEC_LABELS[key],
      values: products.map((p) => (p.comparable_specs[key] === undefined ? null : formatSpecValue(key, p.comparable_specs[key]!))),
    });
  }
  rows.push({
    key: 'locations',
    label: 'Locations',
    values: products.map((p) =>
      p.places.length === 0 ? null : p.places.map((place) => (place.city ? `${place.city}, ${COUNTRY_LABELS.get(place.country!) ?? place.country}` : place.location)).join('; '),
    ),
  });
  rows.push({ key: 'features', label: 'Features', values: products.map((p) => (p.features?.length ? p.features.join('; ') : null)) });
  return rows;
}

export interface CompareView {
  products: ListedProduct[];
  /** ids asked for that are not listed (any more) */
  missing: string[];
  problems: string[];
}

export function comparePage(view: CompareView, categories: Category[]): Html {
  const { products } = view;
  const ids = products.map((product) => product.id);
  const without = (id: string) => {
    const rest = ids.filter((other) => other !== id);
    return rest.length > 0 ? `/compare${queryString({ ids: rest.join(',') })}` : '/compare';
  };
  const rows = compareRows(products, categories);
  return layout(
    {
      title: products.length > 0 ? `Compare ${products.map((p) => p.name).join(', ')}` : 'Compare plans',
      description: 'Hosting plans side by side: prices, setup fees, minimum terms and specs normalized across providers.',
    },
    html`<nav aria-label="Breadcrumb" class="breadcrumb"><a href="/">All categories</a> › <span>Compare</span></nav>
<h1>Compare plans</h1>
${view.problems.length > 0 ? html`<div class="problem" role="alert"><h2>This comparison could not be made</h2><ul>${view.problems.map((problem) => html`<li>${problem}</li>`)}</ul></div>` : ''}
${view.missing.length > 0 ? html`<p class="problem" role="status">${view.missing.length === 1 ? 'One plan is' : `${view.missing.length} plans are`} not listed any more: ${view.missing.join(', ')}.</p>` : ''}
${products.length === 0
    ? html`<p>Pick up to ${COMPARE_MAX} plans with their “Compare” boxes on a <a href="/search">search</a> or category page, then choose “Compare selected”.</p>`
    : html`<div class="scroll"><table class="compare">
<caption class="visually-hidden">The plans side by side</caption>
<thead><tr><td></td>${products.map((p) => html`<th scope="col"><a href="/products/${encodeURIComponent(p.id)}">${p.name}</a><br><a class="muted" href="${without(p.id)}">Remove<span class="visually-hidden"> ${p.name}</span></a></th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr><th scope="row">${row.label}</th>${row.values.map((value) => html`<td>${value ?? html`<span class="muted">—</span>`}</td>`)}</tr>`)}
<tr><th scope="row">Specs as listed</th>${products.map((p) => html`<td>${Object.entries(p.specs ?? {}).map(([key, value]) => html`<div>${key}: ${value}</div>`)}${Object.keys(p.specs ?? {}).length === 0 ? html`<span class="muted">—</span>` : ''}</td>`)}</tr>
</tbody></table></div>`}`,
  );
}
