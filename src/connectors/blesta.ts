// Blesta's packages read into BillingProducts, from its API (https://docs.blesta.com/5/developers/api): every
// answer is {"response": …}; an error is a 4xx/5xx with {"message": "…", "errors": {…}} (401: "The authorization
// details given appear to be invalid."). The Packages model (https://source-docs.blesta.com/classes/Packages.html):
// - packages/getList.json?page=N&status=active: one page of packages (the page size is the company's setting),
//   an empty page after the last; hidden packages only with the `hidden` filter, so not here.
// - packages/get.json?package_id=ID: one package with its `pricing`, a list of {term, period, price, setup_fee,
//   currency, …} where period is day, week, month, year or onetime (term 0 for onetime), and its `groups`.
// - status is active, inactive or restricted (restricted packages are sold only to chosen clients); `hidden` 1
//   hides a package from the order forms.
//
// - package_options/getByPackageId.json?package_id=ID (https://source-docs.blesta.com/classes/PackageOptions.html):
//   the options of the package's option groups, each {id, label, name, type, hidden, values: [{name, value,
//   status, …}]}; asked only for a package whose `option_groups` (in packages/get's answer) is not empty. Options
//   of the select and radio types offer a choice from a list and are read; checkbox, quantity and text options
//   are add-ons or the customer's input, and are not; neither are hidden options or inactive values.
//
// Where the documentation leaves two forms, both are read: Blesta 4.5 and later keep translated `names` and
// `descriptions` ([{lang, name}], [{lang, text, html}]) and answer with the company language's `name`,
// `description` and `description_html` beside them; earlier versions have only the latter. Groups come as objects
// with an `id` (and `name`) or as bare ids. Prices come as strings ("5.9900") or numbers.
//
// Stock: a package's `qty` is the quantity left to sell, null for unlimited; it is the product's stock (0: sold
// out), and null or absent means not tracked.

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

/** Blesta's periods in order of length, for listing a package's cycles shortest first. */
const PERIOD_ORDER = ['day', 'week', 'month', 'year', 'onetime'] as const;

/** The message of an error answer ({"message": …}, possibly under one key such as "model"), or null. */
export function blestaRefusal(answer: unknown): string | null {
  if (!isObject(answer) || 'response' in answer) return null;
  const body =
    typeof answer.message === 'string'
      ? answer
      : Object.values(answer).find((v) => isObject(v) && typeof v.message === 'string');
  if (!isObject(body) || typeof body.message !== 'string') return null;
  const details: string[] = [];
  if (isObject(body.errors)) {
    for (const [field, codes] of Object.entries(body.errors)) {
      for (const message of isObject(codes) ? Object.values(codes) : [codes]) {
        if (typeof message === 'string') details.push(`${field}: ${message}`);
      }
    }
  }
  return details.length === 0 ? body.message : `${body.message} (${details.join('; ')})`;
}

/** The `response` of a successful answer. */
export function blestaResponse(answer: unknown, call: string): unknown {
  if (!isObject(answer) || !('response' in answer)) {
    throw new BillingAnswerError(`Blesta answered ${call} without a "response"`);
  }
  return answer.response;
}

/** The packages of one getList page, each with its id. */
export function blestaPage(answer: unknown, page: number): { id: string; listed: JsonObject }[] {
  const response = blestaResponse(answer, `packages/getList page ${page}`);
  if (response === null || response === false) return [];
  const list = listOf(response);
  if (list === null)
    throw new BillingAnswerError(`Blesta answered packages/getList page ${page} with a "response" that is not a list`);
  return list.map((item, index) => {
    const id = isObject(item) ? idOf(item.id) : null;
    if (id === null)
      throw new BillingAnswerError(
        `Blesta answered packages/getList page ${page} with an item (${index}) without an id`,
      );
    return { id, listed: item as JsonObject };
  });
}

/** Whether a packages/get answer names option groups, whose options package_options/getByPackageId gives. */
export function blestaHasOptions(answer: unknown): boolean {
  const detail = isObject(answer) ? answer.response : undefined;
  return isObject(detail) && (listOf(detail.option_groups) ?? []).length > 0;
}

/**
 * One package from its getList entry, its packages/get answer and, when it has option groups, the
 * package_options/getByPackageId answer for it.
 */
export function blestaPackage(
  id: string,
  listed: JsonObject,
  answer: unknown,
  optionsAnswer: unknown = null,
): BillingProduct {
  const detail = blestaResponse(answer, `packages/get for package ${id}`);
  if (!isObject(detail)) {
    throw new BillingAnswerError(`Blesta has no package ${id} any more (it was listed moments ago); run again`);
  }
  const field = (key: string): unknown =>
    detail[key] !== undefined && detail[key] !== null ? detail[key] : listed[key];
  const notes: string[] = [];
  const status = textOf(field('status'))?.trim().toLowerCase() ?? 'active';
  return {
    id,
    name: textOf(field('name')) ?? translated(field('names'), 'name') ?? '',
    description:
      textOf(field('description_html')) ??
      translated(field('descriptions'), 'html') ??
      textOf(field('description')) ??
      translated(field('descriptions'), 'text'),
    groups: groupsOf(field('groups')),
    module: textOf(field('module_name'))?.trim() ?? idOf(field('module_id')),
    offSale:
      status !== 'active'
        ? `${status} in Blesta${status === 'restricted' ? ' (sold only to chosen clients)' : ''}`
        : isYes(field('hidden'))
          ? 'hidden in Blesta'
          : null,
    free: false,
    pricing: pricingOf(field('pricing'), notes),
    options:
      optionsAnswer === null
        ? []
        : optionsOf(blestaResponse(optionsAnswer, `package_options/getByPackageId for package ${id}`)),
    notes,
    stock: unitsOf(field('qty')),
  };
}

/** Option types that offer a choice from a list. */
const LIST_OPTION_TYPES = new Set(['select', 'radio']);

function optionsOf(response: unknown): BillingOption[] {
  const options: BillingOption[] = [];
  for (const option of listOf(response) ?? []) {
    if (!isObject(option) || isYes(option.hidden)) continue;
    if (
      !LIST_OPTION_TYPES.has(
        String(option.type ?? '')
          .trim()
          .toLowerCase(),
      )
    )
      continue;
    const name = textOf(option.label) ?? textOf(option.name);
    if (name === null) continue;
    const choices = (listOf(option.values) ?? [])
      .filter(
        (value): value is JsonObject =>
          isObject(value) &&
          String(value.status ?? 'active')
            .trim()
            .toLowerCase() === 'active',
      )
      .map((value) => textOf(value.name) ?? textOf(value.value))
      .filter((choice): choice is string => choice !== null);
    if (choices.length > 0) options.push({ name, choices });
  }
  return options;
}

/** The English text of a translated list ([{lang, name}]), else the first one's. */
function translated(list: unknown, key: string): string | null {
  const items = (listOf(list) ?? []).filter(isObject);
  const english = items.find((item) => item.lang === 'en_us' && textOf(item[key]) !== null);
  const chosen = english ?? items.find((item) => textOf(item[key]) !== null);
  return chosen === undefined ? null : textOf(chosen[key]);
}

function groupsOf(groups: unknown): { id: string; name: string | null }[] {
  const out: { id: string; name: string | null }[] = [];
  for (const group of listOf(groups) ?? []) {
    const id = isObject(group) ? idOf(group.id) : idOf(group);
    if (id === null) continue;
    const name = isObject(group) ? (textOf(group.name) ?? translated(group.names, 'name')) : null;
    out.push({ id, name: name?.trim() ?? null });
  }
  return out;
}

function pricingOf(pricing: unknown, notes: string[]): Map<string, BillingTier[]> {
  const rows: { currency: string; rank: number; term: number; tier: BillingTier }[] = [];
  for (const row of listOf(pricing) ?? []) {
    if (!isObject(row)) continue;
    const period = typeof row.period === 'string' ? row.period.trim().toLowerCase() : '';
    const rank = (PERIOD_ORDER as readonly string[]).indexOf(period);
    const currency =
      typeof row.currency === 'string' && isCurrencyCode(row.currency.trim())
        ? row.currency.trim().toUpperCase()
        : null;
    const term = amountOf(row.term);
    const price = amountOf(row.price);
    const described = `${row.term ?? '?'} ${row.period ?? '?'} in ${row.currency ?? '?'}`;
    if (rank === -1 || currency === null || price === null || price < 0) {
      notes.push(
        `the pricing ${described} (price ${JSON.stringify(row.price ?? null)}) cannot be read and is left out`,
      );
      continue;
    }
    const oneTime = period === 'onetime';
    if (!oneTime && (term === null || !Number.isInteger(term) || term < 1)) {
      notes.push(`the pricing ${described} has no whole term of 1 or more and is left out`);
      continue;
    }
    const setupFee = amountOf(row.setup_fee);
    rows.push({
      currency,
      rank,
      term: oneTime ? 0 : term!,
      // Blesta's own wording: "1 month", "12 month", "2 year", "onetime" (billing-periods.ts recognises them).
      tier: {
        period: oneTime ? 'onetime' : `${term} ${period}`,
        price,
        setupFee: setupFee !== null && setupFee >= 0 ? setupFee : null,
      },
    });
  }
  rows.sort((a, b) => a.rank - b.rank || a.term - b.term);
  const byCurrency = new Map<string, BillingTier[]>();
  for (const row of rows) {
    const tiers = byCurrency.get(row.currency) ?? [];
    tiers.push(row.tier);
    byCurrency.set(row.currency, tiers);
  }
  return byCurrency;
}
