// WHMCS's GetProducts answer (https://developers.whmcs.com/api-reference/getproducts/) read into BillingProducts.
//
// The documented answer: {"result": "success", "totalresults": 1, "products": {"product": [{"pid", "gid", "type",
// "name", "description", "module", "paytype", "pricing": {"USD": {"prefix", "suffix", "msetupfee", …, "monthly",
// "quarterly", "semiannually", "annually", "biennially", "triennially"}}, …}]}}, prices as strings, "-1.00" for a
// cycle that is not offered. An error is {"result": "error", "message": "…"} ("Authentication Failed",
// "Invalid IP 203.0.113.9").
//
// Where the documentation is silent, and what is done:
// - Hidden and retired products: GetProducts documents no flag for them and lists them like any other. A `hidden`
//   or `retired` field, if an installation's answer has one, leaves the product out; otherwise the provider leaves
//   them out in the category map (null).
// - One-time products (paytype "onetime", AddProduct's pay types are free, onetime, recurring): WHMCS's pricing
//   table has one "One Time/Monthly" column, so the one-time price is read from `monthly` and its setup fee from
//   `msetupfee`.
// - An answer with no products may carry "products" as "", [] or {} rather than {"product": []}; all mean none.
//   One product may come as {"product": {…}} rather than a list of one; both are read.
// - Configurable options: each product's "configoptions": {"configoption": [{"id", "name", "type", "options":
//   {"option": [{"id", "name", "rawName", …}]}}]}. Type 1 (dropdown) and 2 (radio) offer a choice from a list and
//   are read; 3 (yes/no) and 4 (quantity) are add-ons, not the plan, and are not. A choice's name is taken from
//   `rawName` as WHMCS shows it (the part after "|" in "fra|Frankfurt"), since `name` may carry a setup fee
//   (" + $5.00 Setup Fee").
// - Custom fields are not read: GetProducts gives only their name, description and whether they are required,
//   the questions a customer answers when ordering ("Hostname", "Preferred data center"), not their answers or
//   choices, so they state nothing about the plan.
// - Stock: AddProduct and UpdateProduct document `stockcontrol` (stock control on) and `qty` (units in stock); an
//   answer that carries them gives the product's stock (0: sold out). GetProducts' example shows only
//   `quantity_available` (0 for a product on sale), which cannot tell "none left" from "not counted": without
//   `stockcontrol` on, the stock is not tracked (null), and `quantity_available` stands in for a missing `qty`.

import { isCurrencyCode } from '../catalog/currency.js';
import {
  amountOf,
  BillingAnswerError,
  idOf,
  isObject,
  isYes,
  type JsonObject,
  listOf,
  textOf,
  unitsOf,
} from './answer.js';
import type { BillingOption, BillingProduct, BillingTier } from './catalogue.js';

/** GetProducts' pricing keys, with the cycle names WHMCS shows its customers (billing-periods.ts knows them). */
const CYCLES = [
  { price: 'monthly', setup: 'msetupfee', period: 'Monthly' },
  { price: 'quarterly', setup: 'qsetupfee', period: 'Quarterly' },
  { price: 'semiannually', setup: 'ssetupfee', period: 'Semi-Annually' },
  { price: 'annually', setup: 'asetupfee', period: 'Annually' },
  { price: 'biennially', setup: 'bsetupfee', period: 'Biennially' },
  { price: 'triennially', setup: 'tsetupfee', period: 'Triennially' },
] as const;

const ONE_TIME = { price: 'monthly', setup: 'msetupfee', period: 'One Time' } as const;

/** The message of an answer with "result": "error", or null for any other answer. */
export function whmcsRefusal(answer: unknown): string | null {
  if (!isObject(answer) || answer.result !== 'error') return null;
  return typeof answer.message === 'string' && answer.message.trim() !== ''
    ? answer.message.trim()
    : '(WHMCS gave no message)';
}

/** Every product of a successful GetProducts answer; throws BillingAnswerError when the answer is not one. */
export function whmcsProducts(answer: unknown): BillingProduct[] {
  if (!isObject(answer)) throw new BillingAnswerError('WHMCS answered with JSON that is not an object');
  if (answer.result !== 'success') {
    throw new BillingAnswerError(
      `WHMCS answered with "result": ${JSON.stringify(answer.result ?? null)}, not "success"`,
    );
  }
  const list = productList(answer.products);
  const total = amountOf(answer.totalresults);
  if (total !== null && total !== list.length) {
    throw new BillingAnswerError(
      `WHMCS reported ${total} products (totalresults) but its answer holds ${list.length}; ` +
        'syncing part of the catalogue would deactivate the rest, so nothing is synced',
    );
  }
  return list.map((item, index) => productOf(item, index));
}

function productList(products: unknown): unknown[] {
  if (products === undefined || products === null || products === '') return [];
  if (Array.isArray(products)) return products;
  if (!isObject(products))
    throw new BillingAnswerError('WHMCS answered with "products" that is neither an object nor a list');
  const inner = products.product;
  if (inner === undefined || inner === null || inner === '') return [];
  if (isObject(inner) && 'pid' in inner) return [inner];
  const list = listOf(inner);
  if (list === null) throw new BillingAnswerError('WHMCS answered with "products.product" that is not a list');
  return list;
}

function productOf(item: unknown, index: number): BillingProduct {
  if (!isObject(item))
    throw new BillingAnswerError(`WHMCS answered with products.product[${index}] that is not an object`);
  const id = idOf(item.pid);
  if (id === null) throw new BillingAnswerError(`WHMCS answered with products.product[${index}] without a pid`);
  const paytype = typeof item.paytype === 'string' ? item.paytype.trim().toLowerCase() : 'recurring';
  const notes: string[] = [];
  const gid = idOf(item.gid);
  return {
    id,
    name: typeof item.name === 'string' ? item.name : '',
    description: textOf(item.description),
    groups: gid === null ? [] : [{ id: gid, name: null }],
    module: textOf(item.module)?.trim() ?? null,
    offSale: isYes(item.retired) ? 'retired in WHMCS' : isYes(item.hidden) ? 'hidden in WHMCS' : null,
    free: paytype === 'free',
    pricing: paytype === 'free' ? new Map() : pricingOf(item.pricing, paytype === 'onetime', notes),
    options: optionsOf(item.configoptions),
    notes,
    stock: isYes(item.stockcontrol) ? unitsOf(item.qty ?? item.quantity_available) : null,
  };
}

/** Configurable option types that offer a choice from a list: 1 dropdown, 2 radio. */
const LIST_OPTION_TYPES = new Set(['1', '2']);

function optionsOf(configoptions: unknown): BillingOption[] {
  const options: BillingOption[] = [];
  for (const option of wrappedList(configoptions, 'configoption')) {
    if (!isObject(option) || !LIST_OPTION_TYPES.has(String(option.type ?? '').trim())) continue;
    const name = textOf(option.name);
    if (name === null) continue;
    const choices = wrappedList(option.options, 'option')
      .map((choice) => (isObject(choice) ? choiceName(choice) : null))
      .filter((choice): choice is string => choice !== null);
    if (choices.length > 0) options.push({ name, choices });
  }
  return options;
}

/** A choice as WHMCS shows it: the part of "value|Shown name" after the bar (as WHMCS does, a bar first is kept). */
function choiceName(choice: JsonObject): string | null {
  const raw = textOf(choice.rawName);
  if (raw === null) return textOf(choice.name);
  const bar = raw.indexOf('|');
  return bar > 0 ? textOf(raw.slice(bar + 1).split('|')[0]) : raw;
}

/** A list WHMCS wraps in an object ({"configoption": […]}); one item may come unwrapped, and none as "" or []. */
function wrappedList(value: unknown, key: string): unknown[] {
  if (!isObject(value)) return [];
  const inner = value[key];
  if (isObject(inner) && ('id' in inner || 'name' in inner)) return [inner];
  return listOf(inner) ?? [];
}

function pricingOf(pricing: unknown, oneTime: boolean, notes: string[]): Map<string, BillingTier[]> {
  const byCurrency = new Map<string, BillingTier[]>();
  if (!isObject(pricing)) return byCurrency;
  for (const [code, prices] of Object.entries(pricing)) {
    if (!isCurrencyCode(code) || !isObject(prices)) {
      notes.push(`prices under ${JSON.stringify(code)} are not a currency's prices and are left out`);
      continue;
    }
    const currency = code.toUpperCase();
    const tiers: BillingTier[] = [];
    for (const cycle of oneTime ? [ONE_TIME] : CYCLES) {
      const tier = tierOf(prices, cycle, currency, notes);
      if (tier !== null) tiers.push(tier);
    }
    byCurrency.set(currency, tiers);
  }
  return byCurrency;
}

/** A cycle with a price of 0 or more is offered; WHMCS marks one that is not with a negative price ("-1.00"). */
function tierOf(
  prices: JsonObject,
  cycle: { price: string; setup: string; period: string },
  currency: string,
  notes: string[],
): BillingTier | null {
  const raw = prices[cycle.price];
  if (raw === undefined || raw === null) return null;
  const price = amountOf(raw);
  if (price === null) {
    notes.push(
      `the ${cycle.period} price in ${currency} (${JSON.stringify(raw)}) is not an amount; that cycle is left out`,
    );
    return null;
  }
  if (price < 0) return null;
  const setupFee = amountOf(prices[cycle.setup]);
  return { period: cycle.period, price, setupFee: setupFee !== null && setupFee >= 0 ? setupFee : null };
}
