// How a plan's cost reads on the pages: its price per the period it is sold by, the monthly (or yearly) figure the
// list compares, the setup fee, the first year's cost, and the same converted ("≈") into the visitor's currency.
import { periodLabel as periodAfterPrice } from '../catalog/billing-periods.js';
import { PRICE_PER_LABELS, type PricePerKey } from '../catalog/price-per.js';
import type { PricedProduct } from '../http/listed-prices.js';
import { formatPrice, PRICE_ON_REQUEST } from './format.js';
import { html, type Html } from './html.js';

export type PricePeriod = 'month' | 'year';

/** How the lists show prices: the visitor's display currency and period, and what could not be converted. */
export interface PriceDisplay {
  currency: string;
  period: PricePeriod;
  /** currencies of products in view with no exchange rate */
  unconverted: string[];
  /** why the display currency is not the one asked for, if it is not */
  note: string | null;
  /** the query string that keeps the visitor's choice of currency on the pages a list links to ("" or "?display_currency=USD") */
  carry: string;
  /** the display currency the visitor chose, which "Compare selected" carries; null when none was */
  asked: string | null;
}

/** "First year", "First 24 months". */
export function termLabel(months: number): string {
  return months === 12 ? 'First year' : months % 12 === 0 ? `First ${months / 12} years` : `First ${months} months`;
}

/** The headline: the price per the period the plan is sold by ("€120.00 per year"), never a yearly price "per month". */
function headline(
  product: PricedProduct,
  period: PricePeriod,
): { amount: string; per: string; equivalent: string | null } {
  const { cost, currency } = product;
  if (cost.basis === null) return { amount: PRICE_ON_REQUEST, per: '', equivalent: null };
  if (period === 'year' && cost.yearly !== null) {
    return {
      amount: formatPrice(cost.yearly, currency),
      per: cost.yearly_is_equivalent ? 'per year (12 × monthly)' : 'per year',
      equivalent: null,
    };
  }
  const per = cost.basis.period === null ? cost.basis.label : periodAfterPrice(cost.basis.period);
  const equivalent =
    cost.monthly_is_equivalent && cost.monthly !== null
      ? `${formatPrice(round2(cost.monthly), currency)} per month equivalent`
      : null;
  return { amount: formatPrice(cost.basis.price, currency), per, equivalent };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** "≈ $4.11 per month · rates of 2026-11-20", or why there is no such line. */
function convertedLine(product: PricedProduct, display: PriceDisplay): Html | '' {
  const { converted, cost } = product;
  if (product.currency === display.currency || cost.basis === null) return '';
  if (converted === null) {
    return html`<p class="muted">Not converted: no exchange rate for ${product.currency}</p>`;
  }
  const amount = display.period === 'year' ? converted.yearly : converted.monthly;
  if (amount === null) return '';
  const date = converted.rate_date;
  return html`<p class="converted">≈ ${formatPrice(amount, converted.currency)} ${display.period === 'year' ? 'per year' : 'per month'}${date ? html` <span class="muted">(rates of <time datetime="${date}">${date}</time>)</span>` : ''}</p>`;
}

function setupAndTerm(product: PricedProduct): Html | '' {
  const { cost, currency } = product;
  const parts: string[] = [];
  if (cost.setup_fee !== null)
    parts.push(cost.setup_fee === 0 ? 'No setup fee' : `Setup ${formatPrice(cost.setup_fee, currency)}`);
  if (cost.first_term !== null)
    parts.push(`${termLabel(cost.first_term.months)}: ${formatPrice(cost.first_term.cost, currency)}`);
  return parts.length > 0 ? html`<p class="muted terms">${parts.join(' · ')}</p>` : '';
}

/** A price per unit of a resource: to the cent from a unit, else to four decimals ("€0.0375"). */
export function formatPerUnit(amount: number, currency: string): string {
  return formatPrice(amount >= 1 ? round2(amount) : amount, currency);
}

/** "Per month: €2.50 per GB RAM · €5.00 per CPU core · €0.10 per GB disk", of the figures the plan has. */
export function perResourceLine(product: PricedProduct, currency: string): Html | '' {
  const known = (Object.entries(product.price_per) as [PricePerKey, number | null][]).filter(
    (entry): entry is [PricePerKey, number] => entry[1] !== null,
  );
  if (known.length === 0) return '';
  return html`<p class="per"><span class="muted">Per month:</span> ${known.map(([key, amount], index) => html`${index > 0 ? html`<span class="sep"> · </span>` : ''}<span>${formatPerUnit(amount, currency)} ${PRICE_PER_LABELS[key]}</span>`)}</p>`;
}

/**
 * The price block of a card and of a table's row: headline, monthly equivalent, converted figure, setup fee and
 * first-year cost, and the price per resource.
 */
export function cardPrices(product: PricedProduct, display: PriceDisplay): Html {
  const { amount, per, equivalent } = headline(product, display.period);
  return html`<p><span class="price">${amount}</span>${per ? html` <span class="muted">${per}</span>` : ''}</p>
${equivalent ? html`<p class="muted">${equivalent}</p>` : ''}
${convertedLine(product, display)}
${setupAndTerm(product)}
${perResourceLine(product, display.currency)}`;
}

/** The price of a product page's description: "€120.00 per year". */
export function headlineText(product: PricedProduct): string {
  const { amount, per } = headline(product, 'month');
  return [amount, per].filter(Boolean).join(' ');
}

/** The product page's cost beside its headline: per month, per year, setup fee and first term, with their converted figures. */
export function costDetails(product: PricedProduct): Html {
  const { cost, converted, currency } = product;
  const approx = (value: number | null | undefined) =>
    converted && value !== null && value !== undefined && currency !== converted.currency
      ? html` <span class="muted">(≈ ${formatPrice(value, converted.currency)})</span>`
      : '';
  return html`<dl class="cost">
${cost.monthly !== null ? html`<dt>${cost.monthly_is_equivalent ? 'Per month (equivalent)' : 'Per month'}</dt><dd>${formatPrice(round2(cost.monthly), currency)}${approx(converted?.monthly)}</dd>` : ''}
${cost.yearly !== null ? html`<dt>${cost.yearly_is_equivalent ? 'Per year (12 × monthly)' : 'Per year'}</dt><dd>${formatPrice(cost.yearly, currency)}${approx(converted?.yearly)}</dd>` : ''}
<dt>Setup fee</dt><dd>${cost.setup_fee === null ? 'none listed' : cost.setup_fee === 0 ? 'free' : html`${formatPrice(cost.setup_fee, currency)}${approx(converted?.setup_fee)}`}</dd>
${cost.first_term !== null ? html`<dt>${termLabel(cost.first_term.months)}, setup included</dt><dd>${formatPrice(cost.first_term.cost, currency)}${approx(converted?.first_term_cost)}</dd>` : ''}
</dl>`;
}

/** What the list says about currencies: the display currency, what was not converted, and why. */
export function currencyNotes(display: PriceDisplay, maxPriceGiven: boolean): Html {
  return html`${display.note ? html`<p class="notice" role="status">${display.note}</p>` : ''}
${
  display.unconverted.length > 0
    ? html`<p class="notice" role="status">Not converted (no exchange rate): ${display.unconverted.join(', ')}. ${maxPriceGiven ? 'Their plans cannot be compared with the maximum price and are left out.' : 'Sorted by price, their plans come after the converted ones.'}</p>`
    : ''
}`;
}
