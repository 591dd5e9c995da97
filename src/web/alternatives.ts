// A plan page's cheaper alternatives: plans of other providers in its category that cost less per month and give
// at least its RAM, cores and disk (store/directory/alternatives.ts), each with its price and key specs.
import { FAMILY_SPECS, formatSpecValue, SPEC_LABELS, specFamily } from '../catalog/specs.js';
import type { PricedProduct } from '../http/listed-prices.js';
import { formatPrice } from './format.js';
import { html, type Html } from './html.js';

/** What the plan states that an alternative gives at least as much of: "at least 4 GB RAM, 2 cores and 80 GB disk". */
function atLeast(product: PricedProduct): string {
  const stated = (['ram_gb', 'cpu_cores', 'disk_gb'] as const).flatMap((key) => {
    const value = product.comparable_specs[key];
    return value === undefined ? [] : [`${SPEC_LABELS[key]} ${formatSpecValue(key, value)}`];
  });
  return stated.length === 0 ? '' : `, with at least its ${stated.join(', ')}`;
}

/** One alternative: its name and provider, its monthly price in the display currency, and its key specs. */
function alternativeItem(alternative: PricedProduct, carry: string): Html {
  const monthly = alternative.converted?.monthly ?? null;
  const specs = FAMILY_SPECS[specFamily(alternative.category)]
    .filter((key) => alternative.comparable_specs[key] !== undefined)
    .slice(0, 4)
    .map((key) => `${SPEC_LABELS[key]} ${formatSpecValue(key, alternative.comparable_specs[key]!)}`);
  return html`<li><a href="/products/${encodeURIComponent(alternative.id)}${carry}">${alternative.name}</a> <span class="muted">by ${alternative.host.name}</span>
${monthly === null ? '' : html` · <strong>${formatPrice(monthly, alternative.converted!.currency)}</strong> per month`}${specs.length > 0 ? html`<br><span class="muted">${specs.join(' · ')}</span>` : ''}</li>`;
}

/** The section of a plan's page; a plan without a converted price, or without cheaper plans, says so. */
export function alternativesSection(product: PricedProduct, alternatives: PricedProduct[], carry: string): Html {
  return html`<h2 id="alternatives">Cheaper alternatives</h2>
${
  alternatives.length === 0
    ? html`<p class="muted">${product.base_monthly_price === null ? 'This plan has no price to compare.' : 'No other provider lists a cheaper plan in this category with at least these specs.'}</p>`
    : html`<p class="muted">Plans of other providers in this category that cost less per month${atLeast(product)}; cheapest first.</p>
<ul class="alternatives">${alternatives.map((alternative) => alternativeItem(alternative, carry))}</ul>`
}`;
}
