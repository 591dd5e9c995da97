// The table view of a result list: one row per plan, the family's normalized specs as columns, each column header
// a link that sorts by it (server-side, so keyset paging stays right), and a checkbox per row to compare plans.
import {
  FAMILY_SPECS,
  formatSpecValue,
  NUMERIC_SPEC_KEYS,
  SPEC_LABELS,
  specFamily,
  type NumericSpec,
  type SpecKey,
} from '../catalog/specs.js';
import type { ListedProduct } from '../store/directory/listed-product.js';
import { html, type Html } from './html.js';
import { stockMark } from './stock.js';

/** The spec columns of a table of the given category (its family's), or of every family's common ones. */
export function tableColumns(category: string | undefined): SpecKey[] {
  return category === undefined
    ? ['cpu_cores', 'ram_gb', 'disk_gb', 'disk_type', 'bandwidth_tb']
    : [...FAMILY_SPECS[specFamily(category)]];
}

export interface TableSorting {
  /** the page's sort value (price, price_desc, ram_gb_desc…) */
  current: string;
  /** the href of the page sorted by the given page sort value */
  hrefOf(sort: string): string;
}

/** A normalized spec of a product as a table cell shows it; "—" when its specs do not give it. */
export function specCell(product: ListedProduct, key: SpecKey): string {
  const value = product.comparable_specs[key];
  return value === undefined ? '—' : formatSpecValue(key, value);
}

/** The spec columns a phone shows: the family's first ones; the others are on each plan's page. */
const PHONE_SPEC_COLUMNS = 2;

/** ' class="extra"' for a column a phone leaves out. */
const extra = (index: number): Html | '' => (index >= PHONE_SPEC_COLUMNS ? html` class="extra"` : '');

function sortHeader(
  label: string,
  ascending: string,
  descending: string,
  firstDescending: boolean,
  sorting: TableSorting,
  index = 0,
): Html {
  const state = sorting.current === ascending ? 'ascending' : sorting.current === descending ? 'descending' : null;
  const next =
    state === 'ascending' ? descending : state === 'descending' ? ascending : firstDescending ? descending : ascending;
  const arrow = state === 'ascending' ? ' ▲' : state === 'descending' ? ' ▼' : '';
  const how = next === ascending ? 'lowest first' : 'highest first';
  return html`<th scope="col"${extra(index)}${state ? html` aria-sort="${state}"` : ''}><a href="${sorting.hrefOf(next)}">${label}<span class="visually-hidden">, sort ${how}</span></a>${arrow}</th>`;
}

export function resultTable(
  products: ListedProduct[],
  columns: SpecKey[],
  sorting: TableSorting,
  price: (product: ListedProduct) => Html,
  showHost: boolean,
): Html {
  return html`<div class="scroll"><table class="results">
<caption class="visually-hidden">Plans with their normalized specs; column headers sort</caption>
<thead><tr><th scope="col"><span class="visually-hidden">Compare</span></th>
${sortHeader('Plan', 'name', 'name_desc', false, sorting)}
${sortHeader('Price', 'price', 'price_desc', false, sorting)}
${columns.map((key, index) =>
  key === 'disk_type'
    ? html`<th scope="col"${extra(index)}>${SPEC_LABELS[key]}</th>`
    : sortHeader(SPEC_LABELS[key], `${key}_asc`, `${key}_desc`, true, sorting, index),
)}
</tr></thead>
<tbody>${products.map(
    (product) => html`<tr>
<td><input type="checkbox" name="ids" value="${product.id}" id="cmp-${product.id}" aria-label="Compare ${product.name}"></td>
<th scope="row"><a href="/products/${encodeURIComponent(product.id)}">${product.name}</a>${showHost ? html`<br><span class="muted">${product.host.name}</span>` : ''}</th>
<td>${price(product)}${stockMark(product) === '' ? '' : html`<br>${stockMark(product)}`}</td>
${columns.map((key, index) => html`<td${extra(index)}>${specCell(product, key)}</td>`)}
</tr>`,
  )}</tbody>
</table></div>`;
}

/** The spec sorts a table offers, as page sort values: `<key>_asc` and `<key>_desc`. */
export function specPageSort(value: string): { key: NumericSpec; order: 'asc' | 'desc' } | null {
  const match = /^([a-z0-9_]+)_(asc|desc)$/.exec(value);
  if (!match) return null;
  const key = match[1] as NumericSpec;
  return NUMERIC_SPEC_KEYS.includes(key) ? { key, order: match[2] as 'asc' | 'desc' } : null;
}
