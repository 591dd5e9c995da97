// The compare page: up to four plans side by side, their costs in the visitor's currency with each plan's own price
// beside it, their normalized specs as rows with the best of each row marked, then what each provider lists.
import { PRICE_PER_LABELS, pricePerKeys, type PricePerKey } from '../catalog/price-per.js';
import { formatSpecValue, NUMERIC_SPEC_KEYS, SPEC_LABELS, type NumericSpec, type SpecKey } from '../catalog/specs.js';
import type { PricedProduct } from '../http/listed-prices.js';
import type { Category } from '../store/categories.js';
import { formatDuration, formatPrice, placeLabel } from './format.js';
import { html, queryString, type Html } from './html.js';
import { layout } from './layout.js';
import { formatPerUnit, termLabel } from './prices.js';
import { stockText } from './stock.js';

/** The most plans compared at once: more columns do not fit a screen, nor a decision. */
export const COMPARE_MAX = 4;

/** One row of a comparison: a label and each plan's value as text (null: the plan does not say). */
export interface CompareRow {
  key: string;
  label: string;
  values: (string | null)[];
  /** of a price: each plan's own price when it is in another currency than the display currency; else null */
  native: (string | null)[];
  /** which way is better in this row: a lower price, more of a spec; null for a row that is not ranked */
  better: 'lower' | 'higher' | null;
  /** the plans (by position) that are best in this row; none when fewer than two can be ranked, or all are equal */
  best: number[];
}

/** A cost of a plan, in the display currency when it can be converted, and in its own currency. */
interface Amount {
  /** in the display currency; null when the plan does not have it, or its currency has no rate */
  shown: number | null;
  /** in the plan's own currency; null when the plan does not have it */
  own: number | null;
}

/** Positions of the lowest (or highest) of the numbers; none when fewer than two plans have one, or all are equal. */
function bestOf(numbers: (number | null)[], lowest: boolean): number[] {
  const known = numbers.filter((n): n is number => n !== null);
  if (known.length < 2 || known.every((n) => n === known[0])) return [];
  const best = lowest ? Math.min(...known) : Math.max(...known);
  return numbers.flatMap((n, index) => (n === best ? [index] : []));
}

function priceRow(
  key: string,
  label: string,
  products: PricedProduct[],
  currency: string,
  amountOf: (p: PricedProduct) => Amount,
  note?: (p: PricedProduct) => string,
): CompareRow {
  const amounts = products.map(amountOf);
  const values = products.map((p, i) => {
    const { shown, own } = amounts[i]!;
    const text =
      shown !== null
        ? formatPrice(shown, currency)
        : own !== null
          ? `${formatPrice(own, p.currency)} (not converted: no exchange rate)`
          : null;
    return text === null ? null : `${text}${note ? note(p) : ''}`;
  });
  const native = products.map((p, i) => {
    const { shown, own } = amounts[i]!;
    return shown !== null && own !== null && p.currency !== currency ? formatPrice(own, p.currency) : null;
  });
  // Only figures in the one display currency are compared: a plan whose currency has no rate is not ranked.
  return {
    key,
    label,
    values,
    native,
    better: 'lower',
    best: bestOf(
      amounts.map((a) => a.shown),
      true,
    ),
  };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** A cost in the display currency: the plan's own figure when it is priced in it, else the converted one. */
function shownIn(
  currency: string,
  p: PricedProduct,
  own: number | null,
  converted: number | null | undefined,
): number | null {
  if (own === null) return null;
  if (p.currency === currency) return round2(own);
  return converted ?? null;
}

const plain = (
  key: string,
  label: string,
  values: (string | null)[],
  ranked: { better: 'higher'; best: number[] } | null = null,
): CompareRow => ({
  key,
  label,
  values,
  native: values.map(() => null),
  better: ranked?.better ?? null,
  best: ranked?.best ?? [],
});

/**
 * The monthly price per unit of each resource some plan has a figure for (price_per, in the display currency), the
 * lowest marked; a plan whose currency has no rate has none.
 */
function perResourceRows(products: PricedProduct[], currency: string): CompareRow[] {
  const keys = [...new Set(products.flatMap((p) => pricePerKeys(p.category)))] as PricePerKey[];
  return keys.flatMap((key) => {
    const figures = products.map((p) => p.price_per[key] ?? null);
    if (figures.every((figure) => figure === null)) return [];
    return [
      {
        key: `price_per_${key}`,
        // Not "Per month, …": the label of the monthly price row is a word of none other.
        label: `Price ${PRICE_PER_LABELS[key]}, monthly`,
        values: figures.map((figure) => (figure === null ? null : formatPerUnit(figure, currency))),
        native: figures.map(() => null),
        better: 'lower' as const,
        best: bestOf(figures, true),
      },
    ];
  });
}

/**
 * The rows of a comparison, the same for the page and the JSON: the costs in the display currency (per month, per
 * year, the first year with setup), the setup fee and term, the price per resource, then each spec any plan gives, its
 * locations and features.
 */
export function compareRows(products: PricedProduct[], categories: Category[], currency: string): CompareRow[] {
  const label = (slug: string) => categories.find((category) => category.slug === slug)?.label ?? slug;
  const rows: CompareRow[] = [
    plain(
      'provider',
      'Provider',
      products.map((p) => p.host.name),
    ),
    plain(
      'category',
      'Category',
      products.map((p) => label(p.category)),
    ),
    priceRow('monthly_price', 'Per month', products, currency, (p) => ({
      own: p.cost.monthly,
      shown: shownIn(currency, p, p.cost.monthly, p.converted?.monthly),
    })),
    priceRow('yearly_price', 'Per year', products, currency, (p) => ({
      own: p.cost.yearly,
      shown: shownIn(currency, p, p.cost.yearly, p.converted?.yearly),
    })),
    priceRow(
      'first_year_cost',
      'First year, setup included',
      products,
      currency,
      (p) => ({
        own: p.cost.first_term?.cost ?? null,
        shown: shownIn(currency, p, p.cost.first_term?.cost ?? null, p.converted?.first_term_cost),
      }),
      // A minimum term longer than a year is what the first payment buys: said beside the figure.
      (p) =>
        p.cost.first_term !== null && p.cost.first_term.months !== 12
          ? ` (${termLabel(p.cost.first_term.months).toLowerCase()})`
          : '',
    ),
    priceRow('setup_fee', 'Setup fee', products, currency, (p) => ({
      own: p.cost.setup_fee,
      shown: shownIn(currency, p, p.cost.setup_fee, p.converted?.setup_fee),
    })),
    plain(
      'contract_duration',
      'Minimum term',
      products.map((p) => (p.contract_duration === null ? null : formatDuration(p.contract_duration))),
    ),
  ];
  rows.push(...perResourceRows(products, currency));
  // "Free" reads better than €0.00, and is no less the lowest.
  const setup = rows.find((row) => row.key === 'setup_fee')!;
  setup.values = setup.values.map((value, i) => (products[i]!.cost.setup_fee === 0 ? 'free' : value));
  setup.native = setup.native.map((native, i) => (products[i]!.cost.setup_fee === 0 ? null : native));
  for (const key of Object.keys(SPEC_LABELS) as SpecKey[]) {
    if (!products.some((p) => p.comparable_specs[key] !== undefined)) continue;
    const values = products.map((p) => p.comparable_specs[key]);
    const numeric = (NUMERIC_SPEC_KEYS as readonly string[]).includes(key);
    rows.push(
      plain(
        key,
        SPEC_LABELS[key],
        values.map((value) => (value === undefined ? null : formatSpecValue(key, value))),
        // More of a resource is better; "Unlimited" is stored as more than any figure.
        numeric
          ? {
              better: 'higher',
              best: bestOf(
                products.map((p) => p.comparable_specs[key as NumericSpec] ?? null),
                false,
              ),
            }
          : null,
      ),
    );
  }
  // Said only when some plan's provider counts its stock: "Sold out", "Only 2 left", "In stock".
  if (products.some((p) => p.stock !== null))
    rows.push(
      plain(
        'availability',
        'Availability',
        products.map((p) => stockText(p.stock)),
      ),
    );
  rows.push(
    plain(
      'locations',
      'Locations',
      products.map((p) => (p.places.length === 0 ? null : p.places.map(placeLabel).join('; '))),
    ),
  );
  rows.push(
    plain(
      'features',
      'Features',
      products.map((p) => (p.features?.length ? p.features.join('; ') : null)),
    ),
  );
  return rows;
}

/** A plan asked for that is not listed (any more): named when the directory knew it. */
export interface UnlistedPlan {
  id: string;
  /** the plan's and its provider's names; null for an id the directory never had */
  name: string | null;
  host: string | null;
}

export interface CompareView {
  products: PricedProduct[];
  /** ids asked for that are not listed (any more) */
  unlisted: UnlistedPlan[];
  problems: string[];
  /** the currency the costs are shown in, the currencies a visitor may pick, and why it is not the one asked for */
  currency: string;
  currencies: string[];
  note: string | null;
  /** the display currency the visitor chose, kept on the page's links; null when none was */
  asked: string | null;
}

/** The plans asked for that are not listed: a withdrawn one by its name and provider, an id never listed as such. */
function unlistedNotice(unlisted: UnlistedPlan[]): Html | '' {
  if (unlisted.length === 0) return '';
  const named = unlisted.map((plan) =>
    plan.name === null ? `${plan.id}, which this directory never listed` : `${plan.name} by ${plan.host}`,
  );
  return html`<p class="problem" role="status">${unlisted.length === 1 ? 'One plan is' : `${unlisted.length} plans are`} not listed any more: ${named.join('; ')}.</p>`;
}

/** The day of the rates the costs were converted at (the oldest among the plans), or null when none was. */
function ratesDay(products: PricedProduct[]): string | null {
  const days = products.flatMap((p) => (p.converted?.rate_date ? [p.converted.rate_date] : []));
  return days.length === 0 ? null : days.sort()[0]!;
}

/** A value, marked in words (not by colour alone) when it is the row's best, with the plan's own price below it. */
function cell(row: CompareRow, index: number): Html {
  const value = row.values[index];
  if (value === null || value === undefined) return html`<td><span class="muted">—</span></td>`;
  const native = row.native[index];
  const best = row.best.includes(index)
    ? html` <span class="best">${row.better === 'lower' ? 'Lowest' : 'Most'}</span>`
    : '';
  return html`<td>${value}${best}${native ? html`<span class="native muted">priced at ${native}</span>` : ''}</td>`;
}

export function comparePage(view: CompareView, categories: Category[]): Html {
  const { products, currency } = view;
  const ids = products.map((product) => product.id);
  const carry = queryString({ display_currency: view.asked ?? undefined });
  const without = (id: string) => {
    const rest = ids.filter((other) => other !== id);
    return `/compare${queryString({ ids: rest.length > 0 ? rest.join(',') : undefined, display_currency: view.asked ?? undefined })}`;
  };
  const rows = compareRows(products, categories, currency);
  const day = ratesDay(products);
  return layout(
    {
      title: products.length > 0 ? `Compare ${products.map((p) => p.name).join(', ')}` : 'Compare plans',
      description:
        'Hosting plans side by side: prices, setup fees, minimum terms and specs normalized across providers.',
    },
    html`<nav aria-label="Breadcrumb" class="breadcrumb"><a href="/">All categories</a> › <span>Compare</span></nav>
<h1>Compare plans</h1>
${view.problems.length > 0 ? html`<div class="problem" role="alert"><h2>This comparison could not be made</h2><ul>${view.problems.map((problem) => html`<li>${problem}</li>`)}</ul></div>` : ''}
${unlistedNotice(view.unlisted)}
${view.note ? html`<p class="notice" role="status">${view.note}</p>` : ''}
${
  products.length === 0
    ? html`<p>Pick up to ${COMPARE_MAX} plans with their “Compare” boxes on a <a href="/search">search</a> or category page, then choose “Compare selected”.</p>`
    : html`<form class="compare-currency" action="/compare" method="get" aria-label="Currency">
<input type="hidden" name="ids" value="${ids.join(',')}">
<label for="compare-currency">Show prices in</label> <select id="compare-currency" name="display_currency">${view.currencies.map((code) => html`<option value="${code}"${code === currency ? html` selected` : ''}>${code}</option>`)}</select> <button type="submit">Show</button>
</form>
${day ? html`<p class="muted">Converted at the exchange rates of <time datetime="${day}">${day}</time>; a plan priced in another currency shows its own price below the figure.</p>` : ''}
<div class="scroll"><table class="compare plans-${products.length}">
<caption class="visually-hidden">The plans side by side; the best of each row is marked Lowest or Most</caption>
<thead><tr><td></td>${products.map((p) => html`<th scope="col"><a href="/products/${encodeURIComponent(p.id)}${carry}">${p.name}</a><br><a class="muted" href="${without(p.id)}">Remove<span class="visually-hidden"> ${p.name}</span></a></th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr><th scope="row">${row.label}</th>${row.values.map((_, index) => cell(row, index))}</tr>`)}
<tr><th scope="row">Specs as listed</th>${products.map((p) => html`<td>${Object.entries(p.specs ?? {}).map(([key, value]) => html`<div>${key}: ${value}</div>`)}${Object.keys(p.specs ?? {}).length === 0 ? html`<span class="muted">—</span>` : ''}</td>`)}</tr>
</tbody></table></div>`
}`,
  );
}
