// What a plan really costs: the price it is sold at and per which period, its monthly price (or monthly equivalent),
// its yearly price, the setup fee, and the cost of the first year, or of the minimum term when that is longer.
// Pure: from a product's stored content, no currency conversion.
import { monthsPerPeriod, type CanonicalPeriod } from './billing-periods.js';
import type { Content } from './product-fields.js';
import type { PricingTier } from './types.js';

export type PricedContent = Pick<Content, 'price' | 'pricing_tiers' | 'setup_fee' | 'contract_duration'>;

export interface TrueCost {
  /** the price the plan is sold at, and the period it is for (null: a period the directory does not know) */
  basis: { price: number; period: CanonicalPeriod | null; label: string } | null;
  /** per month: the monthly price, or the basis divided by its months when `monthly_is_equivalent` */
  monthly: number | null;
  monthly_is_equivalent: boolean;
  /** per year: the yearly tier, or 12 × the monthly price when `yearly_is_equivalent` */
  yearly: number | null;
  yearly_is_equivalent: boolean;
  setup_fee: number | null;
  /** what the first `months` cost, setup fee included: a year, or the minimum term when that is longer */
  first_term: { months: number; cost: number } | null;
}

const DECIMALS = 1e6;
const round6 = (value: number) => Math.round(value * DECIMALS) / DECIMALS;
const round2 = (value: number) => Math.round(value * 100) / 100;

/** Tiers sold for a whole number of months (monthly … triennially), with those months. */
function wholeMonthTiers(tiers: readonly PricingTier[]): { tier: PricingTier; months: number }[] {
  const whole: { tier: PricingTier; months: number }[] = [];
  for (const tier of tiers) {
    const months = tier.canonical_period === null ? null : monthsPerPeriod(tier.canonical_period);
    if (months !== null) whole.push({ tier, months });
  }
  return whole;
}

/**
 * The price a plan is sold at and its period. A monthly tier is the monthly price. Without one, `price` is the
 * price of a tier of whole months when it equals that tier's price (a plan sold only by the year, price and tier
 * both 120, costs 120 per year, not per month); any other `price` is per month, as the interface defines it. Without
 * a price, the tier of fewest whole months; else the first tier, whatever its period.
 */
export function priceBasis(content: Pick<Content, 'price' | 'pricing_tiers'>): TrueCost['basis'] {
  const tiers = content.pricing_tiers ?? [];
  const monthly = tiers.find((tier) => tier.canonical_period === 'monthly');
  if (monthly) return { price: monthly.price, period: 'monthly', label: monthly.period };
  const whole = wholeMonthTiers(tiers);
  const candidates = content.price === null ? whole : whole.filter(({ tier }) => tier.price === content.price);
  // The fewest months first; the first sent among equals (a stable sort keeps the order).
  const shortest = [...candidates].sort((a, b) => a.months - b.months)[0];
  if (shortest)
    return { price: shortest.tier.price, period: shortest.tier.canonical_period, label: shortest.tier.period };
  if (content.price !== null) return { price: content.price, period: 'monthly', label: 'monthly' };
  const first = tiers[0];
  return first ? { price: first.price, period: first.canonical_period, label: first.period } : null;
}

/** The price per month, or its equivalent over a longer period; null when the plan has none of whole months. */
export function monthlyEquivalent(content: Pick<Content, 'price' | 'pricing_tiers'>): number | null {
  const basis = priceBasis(content);
  if (basis === null || basis.period === null) return null;
  const months = monthsPerPeriod(basis.period);
  return months === null ? null : round6(basis.price / months);
}

/** Months of a minimum term in ISO form (P12M, P1Y, P400D); null when there is none or it is not read. */
export function termMonths(duration: string | null): number | null {
  if (duration === null) return null;
  const match = /^P(\d+)([DWMY])$/.exec(duration);
  if (!match) return null;
  const n = Number(match[1]);
  switch (match[2]) {
    case 'Y':
      return n * 12;
    case 'M':
      return n;
    case 'W':
      return Math.ceil((n * 7) / 30.4375);
    default:
      return Math.ceil(n / 30.4375);
  }
}

export function trueCost(content: PricedContent): TrueCost {
  const tiers = content.pricing_tiers ?? [];
  const basis = priceBasis(content);
  const months = basis?.period ? monthsPerPeriod(basis.period) : null;
  const monthly = basis !== null && months !== null ? round6(basis.price / months) : null;
  const yearlyTier = tiers.find((tier) => tier.canonical_period === 'annually');
  const yearly = yearlyTier ? yearlyTier.price : monthly === null ? null : round2(monthly * 12);

  // Ways to pay for whole months: each tier of whole months, and `price` when it is taken per month.
  const whole = wholeMonthTiers(tiers).map(({ tier, months: m }) => ({ price: tier.price, months: m }));
  if (basis !== null && basis.period === 'monthly' && !whole.some((option) => option.months === 1))
    whole.push({ price: basis.price, months: 1 });
  let firstTerm: TrueCost['first_term'] = null;
  if (whole.length > 0) {
    const shortest = Math.min(...whole.map((option) => option.months));
    const horizon = Math.max(12, termMonths(content.contract_duration) ?? 0, shortest);
    const cheapest = Math.min(
      ...whole
        .filter((option) => option.months <= horizon)
        .map((option) => option.price * Math.ceil(horizon / option.months)),
    );
    firstTerm = { months: horizon, cost: round2(cheapest + (content.setup_fee ?? 0)) };
  }
  return {
    basis,
    monthly,
    monthly_is_equivalent: basis !== null && basis.period !== 'monthly',
    yearly,
    yearly_is_equivalent: yearlyTier === undefined && yearly !== null,
    setup_fee: content.setup_fee,
    first_term: firstTerm,
  };
}
