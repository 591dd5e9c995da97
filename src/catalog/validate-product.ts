// The validation and normalization of one product of a catalogue, field by field.

import { canonicalPeriod, type CanonicalPeriod } from './billing-periods.js';
import { isKnownCurrency } from './currency.js';
import { fingerprintOf } from './fingerprint.js';
import {
  CONTRACT_DURATION_MAX_LENGTH,
  DESCRIPTION_MAX_LENGTH,
  EXTERNAL_ID_MAX_LENGTH,
  LIST_ITEM_MAX_LENGTH,
  LIST_MAX_ITEMS,
  MAX_ERRORS_LISTED,
  NAME_MAX_LENGTH,
  PERIOD_MAX_LENGTH,
  PRICE_MAX,
  PRICING_TIERS_MAX_ITEMS,
  SPEC_KEY_MAX_LENGTH,
  SPEC_VALUE_MAX_LENGTH,
  SPECS_MAX_KEYS,
  STOCK_MAX,
} from './limits.js';
import { CONTRACT_DURATION_PATTERN, PRODUCT_FIELD_NAMES } from './product-fields.js';
import type { KnownProduct, NormalizedProduct, PricingTier } from './types.js';
import {
  type Run,
  type ValidationCode,
  checkLength,
  checkText,
  escapeToken,
  isObject,
  lengthDetail,
  lengthIssue,
  mustBe,
  report,
  shared,
} from './validation-run.js';

const PRODUCT_FIELDS: ReadonlySet<string> = new Set(['external_id', ...PRODUCT_FIELD_NAMES]);
// The durations hostdir reads (and stores in ISO form), as the schema documents them. A string that does not
// match, an n out of range included, is kept as sent.
const CONTRACT_DURATION = new RegExp(CONTRACT_DURATION_PATTERN);
const DURATION_UNITS: Readonly<Record<string, string>> = { d: 'D', w: 'W', m: 'M', y: 'Y' };

/**
 * Validates product i (in payload order) and, while the payload has no error, adds it to `products`, normalized.
 * False once more errors are found than are listed: the products after it need not be looked at.
 */
export function addProduct(run: Run, raw: unknown, i: number, products: (NormalizedProduct | KnownProduct)[]): boolean {
  const product = validateProduct(run, raw, i);
  // Once anything is wrong the products are never used: skip the fingerprints, keep looking for errors.
  if (run.count === 0 && product !== null && run.keepsNormalized) {
    product.fingerprint = fingerprintOf(product);
    products.push(product);
  }
  return run.count <= MAX_ERRORS_LISTED;
}

/** Returns the normalized product (fingerprint still empty), or null when it has errors (already reported). */
export function validateProduct(run: Run, raw: unknown, i: number): NormalizedProduct | null {
  if (!isObject(raw)) {
    report(run, `/products/${i}`, 'type', mustBe('an object', raw));
    return null;
  }
  const before = run.count;

  // for-in walks a JSON object's own keys without allocating an array (JSON objects inherit no enumerable keys).
  for (const key in raw) {
    if (!PRODUCT_FIELDS.has(key)) {
      report(run, `/products/${i}/${escapeToken(key)}`, 'unknown_field', 'unknown field');
    }
  }

  const externalId = checkExternalId(run, raw.external_id, i);

  let name: string | null = null;
  const rawName = raw.name;
  if (rawName === undefined || rawName === null) {
    report(run, `/products/${i}/name`, 'required', 'is required');
  } else if (typeof rawName !== 'string') {
    report(run, `/products/${i}/name`, 'type', mustBe('a string', rawName));
  } else {
    const trimmed = rawName.trim();
    if (
      checkLength(run, trimmed, 1, NAME_MAX_LENGTH, i, 'name', ' after trimming') &&
      checkText(run, trimmed, `/products/${i}/name`)
    ) {
      name = trimmed;
    }
  }

  let category: string | null = null;
  const rawCategory = raw.category;
  if (rawCategory === undefined || rawCategory === null) {
    report(run, `/products/${i}/category`, 'required', 'is required');
  } else if (typeof rawCategory !== 'string') {
    report(run, `/products/${i}/category`, 'type', mustBe('a string', rawCategory));
  } else if (!run.categories.has(rawCategory)) {
    run.categoryDetail ??= `must be one of: ${[...run.categories].sort().join(', ')}`;
    report(run, `/products/${i}/category`, 'enum', run.categoryDetail);
  } else {
    category = shared(run, rawCategory);
  }

  // The original interface makes price optional: a product without one is listed as "price on request".
  const price = raw.price === undefined || raw.price === null ? null : checkPrice(run, raw.price, i, 'price', -1);

  let currency = run.defaultCurrency;
  const rawCurrency = raw.currency;
  if (rawCurrency !== undefined && rawCurrency !== null) {
    if (typeof rawCurrency !== 'string') {
      report(run, `/products/${i}/currency`, 'type', mustBe('a string', rawCurrency));
    } else {
      currency = shared(run, rawCurrency.toUpperCase());
      if (!isKnownCurrency(currency)) {
        report(run, `/products/${i}/currency`, 'currency', 'must be an ISO 4217 currency code known to the server');
      }
    }
  }

  let description: string | null = null;
  const rawDescription = raw.description;
  if (rawDescription !== undefined && rawDescription !== null) {
    if (typeof rawDescription !== 'string') {
      report(run, `/products/${i}/description`, 'type', mustBe('a string', rawDescription));
    } else if (
      checkLength(run, rawDescription, 0, DESCRIPTION_MAX_LENGTH, i, 'description', '') &&
      checkText(run, rawDescription, `/products/${i}/description`)
    ) {
      description = shared(run, rawDescription);
    }
  }

  const specs = raw.specs === undefined || raw.specs === null ? null : checkSpecs(run, raw.specs, i);

  const pricingTiers =
    raw.pricing_tiers === undefined || raw.pricing_tiers === null ? null : checkTiers(run, raw.pricing_tiers, i);

  const setupFee =
    raw.setup_fee === undefined || raw.setup_fee === null ? null : checkPrice(run, raw.setup_fee, i, 'setup_fee', -1);

  let contractDuration: string | null = null;
  const rawDuration = raw.contract_duration;
  if (rawDuration !== undefined && rawDuration !== null) {
    if (typeof rawDuration !== 'string') {
      report(run, `/products/${i}/contract_duration`, 'type', mustBe('a string', rawDuration));
    } else {
      // The original interface leaves the format open: a duration hostdir reads is stored in ISO form ("12 months"
      // → P12M), any other string ("Month-to-month") as sent.
      contractDuration = normalizeDuration(rawDuration);
      if (
        contractDuration === null &&
        checkLength(run, rawDuration, 1, CONTRACT_DURATION_MAX_LENGTH, i, 'contract_duration', '') &&
        checkText(run, rawDuration, `/products/${i}/contract_duration`)
      ) {
        contractDuration = rawDuration;
      }
      if (contractDuration !== null) contractDuration = shared(run, contractDuration);
    }
  }

  const features =
    raw.features === undefined || raw.features === null ? null : checkStringList(run, raw.features, i, 'features');
  const locations =
    raw.datacenter_locations === undefined || raw.datacenter_locations === null
      ? null
      : checkStringList(run, raw.datacenter_locations, i, 'datacenter_locations');

  const stock = raw.stock === undefined || raw.stock === null ? null : checkStock(run, raw.stock, i);

  if (run.count !== before) return null;
  return {
    external_id: externalId!,
    name: name!,
    category: category!,
    price,
    currency,
    description,
    specs,
    pricing_tiers: pricingTiers,
    setup_fee: setupFee,
    contract_duration: contractDuration,
    features,
    datacenter_locations: locations,
    stock,
    fingerprint: '',
  };
}

/** stock (beyond the original document): a whole number of units in 0..STOCK_MAX; -0 becomes 0. */
function checkStock(run: Run, value: unknown, i: number): number | null {
  const pointer = `/products/${i}/stock`;
  if (typeof value !== 'number') {
    report(run, pointer, 'type', mustBe('an integer', value));
  } else if (!Number.isFinite(value)) {
    report(run, pointer, 'not_finite', 'must be a finite number');
  } else if (!Number.isInteger(value)) {
    report(run, pointer, 'type', `must be an integer (a whole number of units), not ${value}`);
  } else if (value < 0) {
    report(run, pointer, 'minimum', 'must be >= 0');
  } else if (value > STOCK_MAX) {
    report(run, pointer, 'maximum', `must be <= ${STOCK_MAX}`);
  } else {
    return value === 0 ? 0 : value;
  }
  return null;
}

function checkExternalId(run: Run, value: unknown, i: number): string | null {
  if (value === undefined || value === null) {
    report(run, `/products/${i}/external_id`, 'required', 'is required');
    return null;
  }
  if (typeof value !== 'string') {
    report(run, `/products/${i}/external_id`, 'type', mustBe('a string', value));
    return null;
  }
  if (!checkLength(run, value, 1, EXTERNAL_ID_MAX_LENGTH, i, 'external_id', '')) return null;
  for (let k = 0; k < value.length; k++) {
    const c = value.charCodeAt(k);
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f)) {
      report(
        run,
        `/products/${i}/external_id`,
        'control_characters',
        'must not contain control characters (U+0000–U+001F, U+007F–U+009F)',
      );
      return null;
    }
  }
  if (!checkText(run, value, `/products/${i}/external_id`)) return null;
  const first = run.seen.get(value);
  if (first !== undefined) {
    report(run, `/products/${i}/external_id`, 'duplicate', `duplicate of /products/${first}/external_id`);
    return null;
  }
  run.seen.set(value, i);
  return value;
}

/** price, setup_fee and tier prices (tier >= 0): a finite number in 0..PRICE_MAX; -0 becomes 0. */
function checkPrice(run: Run, value: unknown, i: number, field: string, tier: number): number | null {
  let code: ValidationCode;
  let detail: string;
  if (typeof value !== 'number') {
    code = 'type';
    detail = mustBe('a number', value);
  } else if (!Number.isFinite(value)) {
    // NaN and Infinity cannot come from JSON.parse, but can from other callers of the core.
    code = 'not_finite';
    detail = 'must be a finite number';
  } else if (value < 0) {
    code = 'minimum';
    detail = 'must be >= 0';
  } else if (value > PRICE_MAX) {
    code = 'maximum';
    detail = `must be <= ${PRICE_MAX}`;
  } else {
    return value === 0 ? 0 : value;
  }
  report(run, tier < 0 ? `/products/${i}/${field}` : `/products/${i}/pricing_tiers/${tier}/${field}`, code, detail);
  return null;
}

function checkSpecs(run: Run, value: unknown, i: number): Record<string, string> | null {
  if (!isObject(value)) {
    report(run, `/products/${i}/specs`, 'type', mustBe('an object', value));
    return null;
  }
  const keys = Object.keys(value);
  if (keys.length > SPECS_MAX_KEYS) {
    report(run, `/products/${i}/specs`, 'max_properties', `must have at most ${SPECS_MAX_KEYS} keys`);
    return null;
  }
  const before = run.count;
  // No prototype: "__proto__" or "constructor" from the payload are own data keys like any other. An empty object
  // whose prototype is then removed, rather than Object.create(null), which V8 keeps as a hash table: about three
  // times the memory, and a sync holds one per product.
  const specs: Record<string, string> = Object.setPrototypeOf({}, null);
  for (const key of keys) {
    const lengthError = lengthIssue(key, 1, SPEC_KEY_MAX_LENGTH);
    if (lengthError !== null) {
      const detail = 'key ' + lengthDetail(lengthError, 1, SPEC_KEY_MAX_LENGTH, '');
      report(run, `/products/${i}/specs/${escapeToken(key)}`, lengthError, detail);
      continue;
    }
    if (!checkText(run, key, `/products/${i}/specs/${escapeToken(key)}`, 'key ')) continue;
    const v = value[key];
    if (typeof v === 'string') {
      const valueError = lengthIssue(v, 0, SPEC_VALUE_MAX_LENGTH);
      if (valueError !== null) {
        const detail = lengthDetail(valueError, 0, SPEC_VALUE_MAX_LENGTH, '');
        report(run, `/products/${i}/specs/${escapeToken(key)}`, valueError, detail);
      } else if (checkText(run, v, `/products/${i}/specs/${escapeToken(key)}`)) {
        specs[key] = shared(run, v);
      }
    } else if (typeof v === 'number') {
      if (Number.isFinite(v)) specs[key] = shared(run, String(v));
      else report(run, `/products/${i}/specs/${escapeToken(key)}`, 'not_finite', 'must be a finite number');
    } else if (typeof v === 'boolean') {
      specs[key] = v ? 'true' : 'false';
    } else {
      report(run, `/products/${i}/specs/${escapeToken(key)}`, 'type', mustBe('a string, number or boolean', v));
    }
  }
  return run.count === before ? specs : null;
}

function checkTiers(run: Run, value: unknown, i: number): PricingTier[] | null {
  if (!Array.isArray(value)) {
    report(run, `/products/${i}/pricing_tiers`, 'type', mustBe('an array', value));
    return null;
  }
  if (value.length > PRICING_TIERS_MAX_ITEMS) {
    report(run, `/products/${i}/pricing_tiers`, 'max_items', `must hold at most ${PRICING_TIERS_MAX_ITEMS} tiers`);
    return null;
  }
  const before = run.count;
  const tiers = new Array<PricingTier>(value.length);
  // canonical period → the first tier naming it; periods the directory does not know are never duplicates.
  const firstTier = new Map<CanonicalPeriod, number>();
  for (let t = 0; t < value.length; t++) {
    const tier: unknown = value[t];
    if (!isObject(tier)) {
      report(run, `/products/${i}/pricing_tiers/${t}`, 'type', mustBe('an object', tier));
      continue;
    }
    for (const key in tier) {
      if (key !== 'period' && key !== 'price') {
        report(run, `/products/${i}/pricing_tiers/${t}/${escapeToken(key)}`, 'unknown_field', 'unknown field');
      }
    }
    const period = checkPeriod(run, tier.period, `/products/${i}/pricing_tiers/${t}/period`);
    let canonical: CanonicalPeriod | null = null;
    if (period !== null) {
      canonical = canonicalPeriod(period);
      const first = canonical === null ? undefined : firstTier.get(canonical);
      if (first !== undefined) {
        report(
          run,
          `/products/${i}/pricing_tiers/${t}/period`,
          'duplicate',
          `duplicate of /products/${i}/pricing_tiers/${first}/period (both name the ${canonical} period)`,
        );
      } else if (canonical !== null) {
        firstTier.set(canonical, t);
      }
    }
    let price: number | null = null;
    if (tier.price === undefined || tier.price === null) {
      report(run, `/products/${i}/pricing_tiers/${t}/price`, 'required', 'is required');
    } else {
      price = checkPrice(run, tier.price, i, 'price', t);
    }
    if (period !== null && price !== null) tiers[t] = { period, price, canonical_period: canonical };
  }
  return run.count === before ? tiers : null;
}

/** A tier's period: any string of 1–PERIOD_MAX_LENGTH characters, kept as sent; null when reported. */
function checkPeriod(run: Run, value: unknown, pointer: string): string | null {
  if (value === undefined || value === null) {
    report(run, pointer, 'required', 'is required');
    return null;
  }
  if (typeof value !== 'string') {
    report(run, pointer, 'type', mustBe('a string', value));
    return null;
  }
  const issue = lengthIssue(value, 1, PERIOD_MAX_LENGTH);
  if (issue !== null) {
    report(run, pointer, issue, lengthDetail(issue, 1, PERIOD_MAX_LENGTH, ''));
    return null;
  }
  return checkText(run, value, pointer) ? shared(run, value) : null;
}

function checkStringList(run: Run, value: unknown, i: number, field: string): string[] | null {
  if (!Array.isArray(value)) {
    report(run, `/products/${i}/${field}`, 'type', mustBe('an array', value));
    return null;
  }
  if (value.length > LIST_MAX_ITEMS) {
    report(run, `/products/${i}/${field}`, 'max_items', `must hold at most ${LIST_MAX_ITEMS} items`);
    return null;
  }
  const before = run.count;
  for (let k = 0; k < value.length; k++) {
    const item: unknown = value[k];
    if (typeof item !== 'string') {
      report(run, `/products/${i}/${field}/${k}`, 'type', mustBe('a string', item));
      continue;
    }
    const lengthError = lengthIssue(item, 1, LIST_ITEM_MAX_LENGTH);
    if (lengthError !== null) {
      report(run, `/products/${i}/${field}/${k}`, lengthError, lengthDetail(lengthError, 1, LIST_ITEM_MAX_LENGTH, ''));
    } else {
      checkText(run, item, `/products/${i}/${field}/${k}`);
    }
  }
  if (run.count !== before) return null;
  // Copied so that the stored product never aliases the caller's array.
  const list = new Array<string>(value.length);
  for (let k = 0; k < value.length; k++) list[k] = shared(run, value[k] as string);
  return list;
}

/** The ISO form ("P12M") or "none" of a duration hostdir reads; null for any other (kept as sent). */
export function normalizeDuration(value: string): string | null {
  const m = CONTRACT_DURATION.exec(value);
  if (m === null) return null;
  if (m[1] !== undefined) return `P${m[1]}${m[2]!.toUpperCase()}`;
  if (m[3] !== undefined) return `P${m[3]}${DURATION_UNITS[m[4]![0]!.toLowerCase()]!}`;
  return 'none';
}
