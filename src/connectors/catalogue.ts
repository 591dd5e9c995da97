// A billing system's product list, read into one shape (BillingProduct, by whmcs.ts, blesta.ts, hostbill.ts),
// becomes a catalogue for the sync endpoint here: the category from the provider's map, the chosen currency's
// billing cycles as pricing tiers under the billing system's own names, the monthly price, the setup fee, the
// description as text, the specs and locations its options and description state (stated-specs.ts), the units left
// when the billing system tracks them (stock). Products the
// billing system keeps off sale, or that the map leaves out, are left out and listed with the reason; those that
// state no spec or no location are listed too, since the directory's filters cannot find them by either.

import { canonicalPeriod, monthsPerPeriod } from '../catalog/billing-periods.js';
import { isCurrencyCode } from '../catalog/currency.js';
import {
  DESCRIPTION_MAX_LENGTH,
  EXTERNAL_ID_MAX_LENGTH,
  NAME_MAX_LENGTH,
  PRICE_MAX,
  PRICING_TIERS_MAX_ITEMS,
  STOCK_MAX,
} from '../catalog/limits.js';
import type { ProductInput } from '../catalog/product-schema.js';
import { type CategoryMap, chooseCategory } from './category-map.js';
import { htmlToLine, htmlToText } from './html-text.js';
import { statedSpecs } from './stated-specs.js';

/** One billing cycle a product is offered with, in one currency. */
export interface BillingTier {
  /** the billing system's own name of the cycle ("Semi-Annually", "12 month", "Once") */
  period: string;
  price: number;
  /** the setup fee charged with this cycle; null when the billing system gives none */
  setupFee: number | null;
}

/**
 * A choice offered with a product from a list (WHMCS's configurable options of the dropdown and radio types,
 * Blesta's package options of the select and radio types): its name and its choices as the order form shows them.
 * Quantities, yes/no add-ons and text fields are not read: they state nothing about the plan itself.
 */
export interface BillingOption {
  name: string;
  choices: readonly string[];
}

/** The key of `BillingProduct.pricing` when the billing system does not say which currency its prices are in. */
export const UNNAMED_CURRENCY = '';

/** A product as a billing system describes it, before the provider's map and currency are applied. */
export interface BillingProduct {
  /** the billing system's id of the product; becomes external_id */
  id: string;
  name: string;
  /** HTML or plain text, as the billing system keeps it */
  description: string | null;
  groups: readonly { id: string; name: string | null }[];
  module: string | null;
  /** why the billing system itself keeps the product off sale (hidden, retired, inactive), or null */
  offSale: string | null;
  /** sold for nothing (WHMCS's and HostBill's "free" pay type): price 0, no cycles */
  free: boolean;
  /** offered cycles per ISO 4217 code (upper case), or under UNNAMED_CURRENCY */
  pricing: ReadonlyMap<string, readonly BillingTier[]>;
  /** the choices offered with it, in the billing system's order */
  options: readonly BillingOption[];
  /** what reading the billing system's answer noticed about this product (a cycle it could not read) */
  notes: readonly string[];
  /** units left under the billing system's stock control (0: sold out); null when it does not track them */
  stock: number | null;
}

/** A product as the report names it: the billing system's id and the name as text. */
export interface ProductLabel {
  id: string;
  name: string;
}

export interface LeftOut extends ProductLabel {
  reason: string;
}

export interface ImportedCatalogue {
  products: ProductInput[];
  leftOut: LeftOut[];
  /** products in the catalogue whose options and description state no spec the directory reads */
  withoutSpecs: ProductLabel[];
  /** products in the catalogue whose options and description state no datacenter location */
  withoutLocation: ProductLabel[];
  warnings: string[];
  /** the currency of the prices, or null when the billing system does not name it and none was given */
  currency: string | null;
}

export interface CatalogueOptions {
  map: CategoryMap;
  /** the mapping file's name, for messages */
  mapFile: string;
  /** the currency asked for (--currency), any case; null: the only one there is */
  currency: string | null;
  /** the billing system's name, for messages ("WHMCS") */
  system: string;
}

/** Products that the map gives no category, grouped as the provider would add them to the map. */
export class UnmappedProductsError extends Error {
  constructor(
    readonly mapFile: string,
    readonly unmapped: readonly BillingProduct[],
  ) {
    super(unmappedMessage(mapFile, unmapped));
  }
}

/** The prices come in several currencies and none was chosen, or the chosen one is not among them. */
export class CurrencyChoiceError extends Error {}

/** Nothing is left to sync (the sync endpoint refuses an empty catalogue). */
export class EmptyCatalogueError extends Error {}

/** The catalogue the provider's billing system describes, under the provider's map. */
export function catalogueFrom(products: readonly BillingProduct[], options: CatalogueOptions): ImportedCatalogue {
  const leftOut: LeftOut[] = [];
  const warnings: string[] = [];
  const unmapped: BillingProduct[] = [];
  const chosen: { product: BillingProduct; category: string }[] = [];
  const seen = new Set<string>();

  for (const product of products) {
    const label = labelOf(product);
    if (seen.has(product.id)) {
      leftOut.push({
        id: product.id,
        name: label,
        reason: 'listed twice by the billing system; the first one is kept',
      });
      continue;
    }
    seen.add(product.id);
    if (product.offSale !== null) {
      leftOut.push({ id: product.id, name: label, reason: product.offSale });
      continue;
    }
    const choice = chooseCategory(options.map, product);
    if (choice.kind === 'unmapped') unmapped.push(product);
    else if (choice.kind === 'left_out')
      leftOut.push({ id: product.id, name: label, reason: `${options.mapFile} leaves it out (${choice.by} is null)` });
    else chosen.push({ product, category: choice.category });
  }
  if (unmapped.length > 0) throw new UnmappedProductsError(options.mapFile, unmapped);

  const currency = chooseCurrency(
    chosen.map((c) => c.product),
    options,
  );
  const catalogue: ProductInput[] = [];
  for (const { product, category } of chosen) {
    const made = productFrom(product, category, currency, warnings);
    if ('reason' in made) leftOut.push({ id: product.id, name: labelOf(product), reason: made.reason });
    else catalogue.push(made);
  }
  if (catalogue.length === 0) {
    throw new EmptyCatalogueError(
      `nothing to sync: ${options.system} listed ${products.length} product${products.length === 1 ? '' : 's'} and every one is left out` +
        (leftOut.length > 0
          ? `:\n${leftOut.map((l) => `  ${l.id} ${JSON.stringify(l.name)}: ${l.reason}`).join('\n')}`
          : ''),
    );
  }
  const labelled = (p: ProductInput): ProductLabel => ({ id: p.external_id, name: p.name });
  return {
    products: catalogue,
    leftOut,
    withoutSpecs: catalogue.filter((p) => p.specs === undefined).map(labelled),
    withoutLocation: catalogue.filter((p) => p.datacenter_locations === undefined).map(labelled),
    warnings,
    currency: currency.code,
  };
}

interface Currency {
  /** the key of BillingProduct.pricing to read */
  key: string;
  /** what the catalogue says, or null to leave it to the host's default currency */
  code: string | null;
}

function chooseCurrency(products: readonly BillingProduct[], options: CatalogueOptions): Currency {
  const requested = options.currency === null ? null : options.currency.trim().toUpperCase();
  if (requested !== null && !isCurrencyCode(requested)) {
    throw new CurrencyChoiceError(`--currency ${options.currency} is not an ISO 4217 code such as EUR or USD`);
  }
  const named = new Set<string>();
  let unnamed = false;
  for (const product of products) {
    if (product.free) continue;
    for (const key of product.pricing.keys()) {
      if (key === UNNAMED_CURRENCY) unnamed = true;
      else named.add(key);
    }
  }
  if (unnamed && named.size === 0) return { key: UNNAMED_CURRENCY, code: requested };
  const codes = [...named].sort();
  if (requested !== null) {
    if (!named.has(requested) && codes.length > 0) {
      throw new CurrencyChoiceError(
        `${options.system} has no prices in ${requested}; its prices are in ${codes.join(', ')}`,
      );
    }
    return { key: requested, code: requested };
  }
  if (codes.length > 1) {
    throw new CurrencyChoiceError(
      `${options.system} prices its products in ${codes.join(', ')}; choose the currency to list with --currency (e.g. --currency ${codes[0]})`,
    );
  }
  return codes.length === 1 ? { key: codes[0]!, code: codes[0]! } : { key: UNNAMED_CURRENCY, code: null };
}

function productFrom(
  product: BillingProduct,
  category: string,
  currency: Currency,
  warnings: string[],
): ProductInput | { reason: string } {
  const idProblem = externalIdProblem(product.id);
  if (idProblem !== null) return { reason: idProblem };
  const name = limited(htmlToLine(product.name), NAME_MAX_LENGTH);
  if (name.text === '') return { reason: 'it has no name' };
  if (name.cut) warnings.push(`${product.id}: the name is cut to ${NAME_MAX_LENGTH} characters`);
  for (const note of product.notes) warnings.push(`${product.id}: ${note}`);

  const out: ProductInput = { external_id: product.id, name: name.text, category };
  if (product.free) {
    out.price = 0;
  } else {
    const tiers = tiersOf(product, currency, warnings);
    if (tiers.length === 0) {
      return { reason: `no billing cycle is offered${currency.code === null ? '' : ` in ${currency.code}`}` };
    }
    const basis = priceBasis(tiers);
    if (basis.monthly !== null) out.price = basis.monthly;
    out.pricing_tiers = tiers.map((t) => ({ period: t.period, price: t.price }));
    if (basis.tier.setupFee !== null) out.setup_fee = basis.tier.setupFee;
  }
  if (currency.code !== null) out.currency = currency.code;
  if (product.stock !== null) out.stock = Math.min(product.stock, STOCK_MAX);
  const description =
    product.description === null ? null : limited(htmlToText(product.description), DESCRIPTION_MAX_LENGTH);
  if (description !== null) {
    if (description.cut) warnings.push(`${product.id}: the description is cut to ${DESCRIPTION_MAX_LENGTH} characters`);
    if (description.text !== '') out.description = description.text;
  }
  // The description as the directory shows it: what a visitor reads is what the specs are read from.
  const stated = statedSpecs(description?.text ?? null, product.options);
  if (Object.keys(stated.specs).length > 0) out.specs = stated.specs;
  if (stated.locations.length > 0) out.datacenter_locations = stated.locations;
  for (const note of stated.notes) warnings.push(`${product.id}: ${note}`);
  return out;
}

/** The offered cycles in the chosen currency: one per period the directory recognises, at most as many as it takes. */
function tiersOf(product: BillingProduct, currency: Currency, warnings: string[]): BillingTier[] {
  const kept: BillingTier[] = [];
  const byPeriod = new Map<string, BillingTier>();
  for (const tier of product.pricing.get(currency.key) ?? []) {
    if (!(tier.price >= 0 && tier.price <= PRICE_MAX)) {
      warnings.push(`${product.id}: the ${tier.period} price ${tier.price} is out of range and left out`);
      continue;
    }
    const canonical = canonicalPeriod(tier.period);
    const key = canonical ?? `as sent:${tier.period}`;
    const earlier = byPeriod.get(key);
    if (earlier !== undefined) {
      warnings.push(
        `${product.id}: "${tier.period}" names the same period as "${earlier.period}"; only "${earlier.period}" is listed`,
      );
      continue;
    }
    if (kept.length === PRICING_TIERS_MAX_ITEMS) {
      warnings.push(`${product.id}: only the first ${PRICING_TIERS_MAX_ITEMS} billing cycles are listed`);
      break;
    }
    byPeriod.set(key, tier);
    kept.push(tier);
  }
  return kept;
}

/**
 * The monthly price and the tier it comes from: the monthly cycle's price; else the shortest cycle of whole months
 * divided by its months (a product sold only yearly at 120 lists 10 a month, as the directory compares monthly
 * prices); else none (only one-time, hourly, daily or weekly cycles). The setup fee is that tier's, or the first's.
 */
function priceBasis(tiers: readonly BillingTier[]): { monthly: number | null; tier: BillingTier } {
  let shortest: { tier: BillingTier; months: number } | null = null;
  for (const tier of tiers) {
    const canonical = canonicalPeriod(tier.period);
    if (canonical === 'monthly') return { monthly: tier.price, tier };
    const months = canonical === null ? null : monthsPerPeriod(canonical);
    if (months !== null && (shortest === null || months < shortest.months)) shortest = { tier, months };
  }
  if (shortest === null) return { monthly: null, tier: tiers[0]! };
  return { monthly: Math.round((shortest.tier.price / shortest.months) * 100) / 100, tier: shortest.tier };
}

function externalIdProblem(id: string): string | null {
  if (id === '') return 'it has no id';
  if ([...id].length > EXTERNAL_ID_MAX_LENGTH) return `its id is longer than ${EXTERNAL_ID_MAX_LENGTH} characters`;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return 'its id holds control characters';
  }
  return null;
}

/** At most `max` code points, the last one '…' when cut. */
function limited(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const points = [...text];
  if (points.length <= max) return { text, cut: false };
  return {
    text: `${points
      .slice(0, max - 1)
      .join('')
      .trimEnd()}…`,
    cut: true,
  };
}

function labelOf(product: BillingProduct): string {
  return htmlToLine(product.name) || '(no name)';
}

/** How many products are named per group in the message before "and n more". */
const NAMED_PER_GROUP = 3;

function unmappedMessage(mapFile: string, unmapped: readonly BillingProduct[]): string {
  const byGroup = new Map<
    string,
    { group: { id: string; name: string | null } | null; modules: Set<string>; products: BillingProduct[] }
  >();
  for (const product of unmapped) {
    const group = product.groups[0] ?? null;
    const key = group === null ? `product:${product.id}` : `group:${group.id}`;
    let entry = byGroup.get(key);
    if (entry === undefined) byGroup.set(key, (entry = { group, modules: new Set(), products: [] }));
    if (product.module !== null) entry.modules.add(product.module);
    entry.products.push(product);
  }
  const lines = [`${mapFile} gives no category to ${unmapped.length} product${unmapped.length === 1 ? '' : 's'}:`];
  const groups: Record<string, string> = {};
  const products: Record<string, string> = {};
  for (const { group, modules, products: members } of byGroup.values()) {
    const named = members.slice(0, NAMED_PER_GROUP).map((p) => `${p.id} ${JSON.stringify(labelOf(p))}`);
    if (members.length > NAMED_PER_GROUP) named.push(`and ${members.length - NAMED_PER_GROUP} more`);
    const module = modules.size > 0 ? ` (module ${[...modules].join(', ')})` : '';
    if (group === null) {
      lines.push(`  product ${named.join(', ')}${module}, in no group`);
      for (const p of members) products[p.id] = '<category>';
    } else {
      lines.push(
        `  group ${group.id}${group.name === null ? '' : ` ${JSON.stringify(group.name)}`}${module}: ${named.join(', ')}`,
      );
      groups[group.id] = '<category>';
    }
  }
  const template: Record<string, Record<string, string>> = {};
  if (Object.keys(groups).length > 0) template.groups = groups;
  if (Object.keys(products).length > 0) template.products = products;
  lines.push(
    `Add them to ${mapFile}, each with a category slug (hostdir categories list shows them) or null to leave them out, e.g.:`,
    JSON.stringify(template, null, 2),
  );
  return lines.join('\n');
}
