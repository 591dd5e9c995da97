// What a listed product costs, as the directory API and the pages both show it: the true cost in the product's own
// currency (catalog/true-cost.ts) and the same figures converted into the visitor's display currency.
import { Type, type Static } from '@sinclair/typebox';
import {
  PRICE_PER_ALWAYS,
  PRICE_PER_LABELS,
  PRICE_PER_SPEC,
  pricePer,
  type PricePer,
  type PricePerKey,
} from '../catalog/price-per.js';
import { BASE_CURRENCY, type RateTable } from '../catalog/rates.js';
import { NUMERIC_SPECS } from '../catalog/specs.js';
import { trueCost, type TrueCost } from '../catalog/true-cost.js';
import type { ListedProduct } from '../store/directory/listed-product.js';
import type { PriceContext } from '../store/rates.js';
import { Problem } from './problems.js';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const CostSchema = Type.Object(
  {
    basis: nullable(
      Type.Object(
        {
          price: Type.Number(),
          period: nullable(Type.String({ description: 'canonical period; null for one the directory does not know' })),
          label: Type.String({ description: 'the period as the provider sent it' }),
        },
        { additionalProperties: false, description: 'the price the plan is sold at, per period' },
      ),
    ),
    monthly: nullable(
      Type.Number({ description: 'per month: the monthly price, or the monthly equivalent of a longer period' }),
    ),
    monthly_is_equivalent: Type.Boolean({
      description: 'true when the plan is not sold by the month and `monthly` is its basis divided by its months',
    }),
    yearly: nullable(Type.Number({ description: 'per year: the yearly tier, or 12 × monthly' })),
    yearly_is_equivalent: Type.Boolean({
      description: 'true when there is no yearly tier and `yearly` is 12 × monthly',
    }),
    setup_fee: nullable(Type.Number()),
    first_term: nullable(
      Type.Object(
        {
          months: Type.Integer({ description: '12, or the minimum term when longer' }),
          cost: Type.Number({ description: 'setup fee included' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: "the true cost, in the product's currency" },
);

export const ConvertedSchema = nullable(
  Type.Object(
    {
      currency: Type.String({ description: 'the display currency' }),
      monthly: nullable(Type.Number()),
      yearly: nullable(Type.Number()),
      setup_fee: nullable(Type.Number()),
      first_term_cost: nullable(Type.Number()),
      rate_date: nullable(
        Type.String({
          format: 'date',
          description: 'the day of the oldest exchange rate used; null when none was (EUR to EUR)',
        }),
      ),
    },
    {
      additionalProperties: false,
      description: 'the cost in the display currency (approximate); null when the product currency has no rate',
    },
  ),
);

export type Converted = Static<typeof ConvertedSchema>;

const pricePerFigure = (key: PricePerKey) =>
  nullable(
    Type.Number({
      description:
        `the monthly price ${PRICE_PER_LABELS[key]} (${NUMERIC_SPECS[PRICE_PER_SPEC[key]].label} in ` +
        'comparable_specs), to four decimals; null without a converted monthly price or without that spec (or with ' +
        'it unlimited)',
    }),
  );

export const PricePerSchema = Type.Object(
  {
    ...(Object.fromEntries(PRICE_PER_ALWAYS.map((key) => [key, pricePerFigure(key)])) as Record<
      (typeof PRICE_PER_ALWAYS)[number],
      ReturnType<typeof pricePerFigure>
    >),
    traffic_tb: Type.Optional(pricePerFigure('traffic_tb')),
    player_slot: Type.Optional(pricePerFigure('player_slot')),
  },
  {
    additionalProperties: false,
    description:
      'the monthly price in the display currency (converted.monthly) per unit of each resource: ram_gb, cpu_core and ' +
      'disk_gb on every product; traffic_tb where the category has traffic (servers, web hosting), player_slot where ' +
      'it has player slots (game servers)',
  },
);

export interface PricedProduct extends ListedProduct {
  cost: TrueCost;
  converted: Converted;
  price_per: PricePer;
}

/** The currency prices are shown in, with the rates; `note` says why it is not the one asked for. */
export interface PriceView {
  currency: string;
  rates: RateTable;
  note: string | null;
}

function hasRate(currency: string, rates: RateTable): boolean {
  return currency === BASE_CURRENCY || rates.has(currency);
}

/**
 * The display currency: the one asked for (`display_currency`); else the currency filtered on; else the server's
 * default. One without a rate is refused when asked for by name in the API (`strict`); elsewhere EUR stands in, and
 * the note says so.
 */
export function priceView(
  asked: { display?: string | undefined; filter?: string | undefined },
  defaultCurrency: string,
  rates: RateTable,
  strict: boolean,
): PriceView {
  const display = asked.display?.trim().toUpperCase();
  if (display) {
    if (hasRate(display, rates)) return { currency: display, rates, note: null };
    if (strict) {
      throw new Problem('VALIDATION_FAILED', `no exchange rate for ${display}`, {
        errors: [
          {
            parameter: 'display_currency',
            code: 'no_rate',
            detail: `no exchange rate is known for ${display}; known: ${[BASE_CURRENCY, ...rates.keys()].join(', ')}`,
          },
        ],
      });
    }
    return {
      currency: BASE_CURRENCY,
      rates,
      note: `There is no exchange rate for ${display}: prices are shown in ${BASE_CURRENCY}.`,
    };
  }
  if (asked.filter && hasRate(asked.filter, rates)) return { currency: asked.filter, rates, note: null };
  if (hasRate(defaultCurrency, rates)) return { currency: defaultCurrency, rates, note: null };
  return { currency: BASE_CURRENCY, rates, note: null };
}

/** An amount from one currency into another through EUR, unrounded; null without both rates. */
function convertExactly(amount: number | null, from: string, to: string, rates: RateTable): number | null {
  if (amount === null) return null;
  if (from === to) return amount;
  const fromRate = from === BASE_CURRENCY ? 1 : rates.get(from)?.rate;
  const toRate = to === BASE_CURRENCY ? 1 : rates.get(to)?.rate;
  if (fromRate === undefined || toRate === undefined) return null;
  return (amount / fromRate) * toRate;
}

/** An amount from one currency into another through EUR, to the cent; null without both rates. */
function convert(amount: number | null, from: string, to: string, rates: RateTable): number | null {
  // A stored EUR price has six decimals, a monthly equivalent (a yearly price / 12) as many: shown to the cent.
  const converted = convertExactly(amount, from, to, rates);
  return converted === null ? null : Math.round(converted * 100) / 100;
}

/** The older date of the two currencies' rates (EUR has none: it is the base); null when either has no rate. */
function rateDate(from: string, to: string, rates: RateTable): string | null {
  const dateOf = (currency: string) => (currency === BASE_CURRENCY ? '' : rates.get(currency)?.date);
  const [a, b] = [dateOf(from), dateOf(to)];
  if (a === undefined || b === undefined) return null;
  const older = a === '' ? b : b === '' || a < b ? a : b;
  return older === '' ? null : older;
}

/** The product with its true cost and, when its currency has a rate, the cost in the display currency. */
export function pricedProduct(product: ListedProduct, view: PriceView): PricedProduct {
  const cost = trueCost(product);
  const { currency, rates } = view;
  let converted: Converted = null;
  // Per resource from the EUR price the sorts by price per resource order by (migration 081), not from the rounded
  // monthly figure: the figures are in the order of the sort.
  const monthlyExactly =
    product.base_monthly_price === null
      ? null
      : convertExactly(product.base_monthly_price, BASE_CURRENCY, currency, rates);
  const date = rateDate(product.currency, currency, rates);
  if (hasRate(product.currency, rates) && hasRate(currency, rates)) {
    // The monthly figure is the stored EUR price converted: the one the list is sorted and filtered by.
    const monthly =
      product.base_monthly_price === null
        ? convert(cost.monthly, product.currency, currency, rates)
        : convert(product.base_monthly_price, BASE_CURRENCY, currency, rates);
    converted = {
      currency,
      monthly,
      yearly: convert(cost.yearly, product.currency, currency, rates),
      setup_fee: convert(cost.setup_fee, product.currency, currency, rates),
      first_term_cost: convert(cost.first_term?.cost ?? null, product.currency, currency, rates),
      rate_date: date,
    };
  }
  // Every field by name rather than `...product`: the spread of a listed product's 26 fields cost a category page about
  // a fifth of its server CPU (bench:read). PricedProduct requires every field of ListedProduct, so a field added there
  // fails to compile until it is carried here too.
  return {
    id: product.id,
    name: product.name,
    category: product.category,
    price: product.price,
    currency: product.currency,
    description: product.description,
    specs: product.specs,
    pricing_tiers: product.pricing_tiers,
    setup_fee: product.setup_fee,
    contract_duration: product.contract_duration,
    features: product.features,
    datacenter_locations: product.datacenter_locations,
    stock: product.stock,
    comparable_specs: product.comparable_specs,
    places: product.places,
    monthly_price: product.monthly_price,
    monthly_equivalent: product.monthly_equivalent,
    base_monthly_price: product.base_monthly_price,
    order_url: product.order_url,
    created_at: product.created_at,
    updated_at: product.updated_at,
    host: product.host,
    confirmed_at: product.confirmed_at,
    stale: product.stale,
    price_drop: product.price_drop,
    available: product.available,
    cost,
    converted,
    price_per: pricePer(monthlyExactly, product.comparable_specs, product.category),
  };
}

/**
 * The currencies, among those present in a list's scope, whose products are listed without a EUR price (no rate):
 * those the price context names, and those of the list's own products that have a monthly price but no EUR one
 * (exact for what the list shows, however recently a sync brought them).
 */
export function unconvertedAmong(
  prices: PriceContext,
  products: readonly ListedProduct[],
  present: Iterable<string>,
): string[] {
  const seen = new Set(present);
  for (const product of products) seen.add(product.currency);
  const unconverted = new Set(prices.unconverted);
  for (const product of products) {
    if (product.base_monthly_price === null && product.monthly_equivalent !== null) unconverted.add(product.currency);
  }
  return [...unconverted].filter((currency) => seen.has(currency)).sort();
}
