// Validation and normalization of a sync payload (contract section 4) in one pass, collecting every error.
// Hand-written rather than compiled from the schema: 50 000 products must pass in tens of milliseconds, the errors
// need the contract's codes and pointers, and normalization (trim, currency, specs, durations) happens on the way.

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
} from './limits.js';
import { findProductExtents } from './product-extents.js';
import { CONTRACT_DURATION_PATTERN, PRODUCT_FIELD_NAMES } from './product-fields.js';
import type { CatalogueProduct, KnownProduct, NormalizedProduct, PricingTier, ValidationIssue } from './types.js';

/**
 * The version of what a product's bytes validate and normalize to: raise it with any change to that (a rule, a limit,
 * a normalization, the fingerprint), never for a change that leaves every answer as it was. Receipts
 * (sync/receipts.ts) hold only under the version they were written with, so each host's next sync after a raise
 * validates its catalogue whole once. test/catalog/validation-version.test.ts records what a varied set of products
 * validates to under this version, and fails when that changes while the version does not.
 */
export const VALIDATION_VERSION = 1;

export interface ValidateOptions {
  /** the category registry's slugs */
  categories: ReadonlySet<string>;
  /** the host's default_currency, used when a product has none */
  defaultCurrency: string;
  /** MAX_PRODUCTS */
  maxProducts: number;
  /**
   * Only the verdict is wanted, and the products known by their bytes: products validated in full are checked but
   * not kept, so that an ok answer lists only the known ones. The errors are the same.
   */
  verdictOnly?: boolean;
}

/** Every `code` a ValidationIssue from validateCatalogue can carry. */
export const VALIDATION_CODES = [
  'type',
  'required',
  'unknown_field',
  'min_items',
  'max_items',
  'min_length',
  'max_length',
  'minimum',
  'maximum',
  'not_finite',
  'enum',
  'duplicate',
  'control_characters',
  'invalid_unicode',
  'currency',
  'format',
  'max_properties',
] as const;
export type ValidationCode = (typeof VALIDATION_CODES)[number];

export type ValidationResult<P extends CatalogueProduct = CatalogueProduct> =
  | {
      ok: true;
      products: P[];
      /** how many of them were known by their bytes (validateCatalogueJson with KnownItems), not parsed */
      known: number;
    }
  | { ok: false; errors: ValidationIssue[]; truncated: boolean };

/**
 * Products a caller already knows by their bytes (the receipts, sync/receipts.ts): what item `position`, whose
 * bytes are `bytes`, once validated to under the same options, or undefined to validate it as usual.
 */
export interface KnownItems {
  find(bytes: Uint8Array, position: number): { external_id: string; fingerprint: string; id: string } | undefined;
}

const PRODUCT_FIELDS: ReadonlySet<string> = new Set(['external_id', ...PRODUCT_FIELD_NAMES]);
// The durations hostdir reads (and stores in ISO form), as the schema documents them. A string that does not
// match, an n out of range included, is kept as sent.
const CONTRACT_DURATION = new RegExp(CONTRACT_DURATION_PATTERN);
const DURATION_UNITS: Readonly<Record<string, string>> = { d: 'D', w: 'W', m: 'M', y: 'Y' };

/** Mutable state of one validation run, passed to plain functions instead of closing over it. */
interface Run {
  readonly errors: ValidationIssue[];
  /** every error found, including those past the listing cap */
  count: number;
  readonly categories: ReadonlySet<string>;
  /** "must be one of: …", built on the first category error only */
  categoryDetail: string | null;
  readonly defaultCurrency: string;
  /** external_id → index of the product that first used it */
  readonly seen: Map<string, number>;
  /** the values products share, each kept once (see shared) */
  readonly shared: Map<string, string>;
  /** whether products validated in full are kept (not ValidateOptions.verdictOnly) */
  readonly keepsNormalized: boolean;
}

/** At most this many distinct values are kept for sharing per catalogue; past it, new ones are not shared. */
const SHARED_VALUES_MAX = 65_536;

/**
 * A value as a product keeps it: the first equal string of the catalogue. Products of one catalogue repeat their
 * category, currency, features, locations, tier periods, spec values and often their descriptions: each parsed
 * product held copies of its own, which a large sync keeps until it is written (a 50 000-product benchmark catalogue
 * took 45 MB of heap normalized, 36 MB with its values shared). Names and external_ids, mostly distinct, are not.
 */
function shared(run: Run, value: string): string {
  const kept = run.shared.get(value);
  if (kept !== undefined) return kept;
  if (run.shared.size < SHARED_VALUES_MAX) run.shared.set(value, value);
  return value;
}

export function validateCatalogue(body: unknown, opts: ValidateOptions): ValidationResult<NormalizedProduct> {
  const run = newRun(opts);
  if (!isObject(body)) {
    report(run, '', 'type', mustBe('an object', body));
    return failed(run);
  }
  for (const key of Object.keys(body)) {
    if (key !== 'products') report(run, '/' + escapeToken(key), 'unknown_field', 'unknown field');
  }
  const list = body.products;
  if (list === undefined || list === null) {
    report(run, '/products', 'required', 'is required');
    return failed(run);
  }
  if (!Array.isArray(list)) {
    report(run, '/products', 'type', mustBe('an array', list));
    return failed(run);
  }
  if (!checkCount(run, list.length, opts.maxProducts)) return failed(run);

  const products: NormalizedProduct[] = [];
  for (let i = 0; i < list.length; i++) {
    if (!addProduct(run, list[i], i, products)) break;
  }
  return result(run, products);
}

/** The validation of a request body: validateCatalogue's answer, or, when the body is not UTF-8 JSON, one invalid_json error. */
export type BodyValidation =
  ValidationResult | { ok: false; errors: ValidationIssue[]; truncated: false; notJson: true };

/** A body that is not JSON, as the error that says so. */
function notJson(detail: string): BodyValidation {
  return { ok: false, errors: [{ pointer: '', code: 'invalid_json', detail }], truncated: false, notJson: true };
}

const strictUtf8Body = new TextDecoder('utf-8', { fatal: true });

/**
 * The catalogue of a request body given as its bytes: validated product by product when it is plainly
 * {"products": [...]} (validateCatalogueJson, which also takes `known`), else parsed whole, which gives JSON.parse's
 * own error, or validateCatalogue's answer to its shape.
 */
export function validateCatalogueBody(bytes: Uint8Array, opts: ValidateOptions, known?: KnownItems): BodyValidation {
  const itemByItem = validateCatalogueJson(bytes, opts, known);
  if (itemByItem !== null) return itemByItem;
  let text: string;
  try {
    text = strictUtf8Body.decode(bytes);
  } catch {
    return notJson('the body is not valid UTF-8');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return notJson(error instanceof SyntaxError ? error.message : 'the body is not valid JSON');
  }
  return validateCatalogue(body, opts);
}

/**
 * validateCatalogue of a body given as its UTF-8 bytes, without ever building the body's whole tree: each product
 * is parsed on its own and normalized at once, so that its parsed objects die young and only the normalized
 * products stay. Null when the body is not plainly {"products": [...]} (see findProductExtents) or not UTF-8 JSON:
 * the caller then parses it whole, which gives JSON.parse's own error, or validateCatalogue's answer.
 *
 * With `known`, every item's bytes are shown to it, and an item it knows is not parsed: its bytes once validated to
 * what it says, so they do again. The answer is the same as without, errors included: only a known product's
 * external_id can be wrong with it, as a duplicate, and such a product is validated like any other.
 */
export function validateCatalogueJson(
  json: Uint8Array,
  opts: ValidateOptions,
  known?: KnownItems,
): ValidationResult | null {
  const extents = findProductExtents(json);
  if (extents === null) return null;
  const run = newRun(opts);
  const count = extents.starts.length;
  let validating = checkCount(run, count, opts.maxProducts);
  const products: CatalogueProduct[] = [];
  let knownCount = 0;
  for (let i = 0; i < count; i++) {
    const start = extents.starts[i]!;
    const end = extents.ends[i]!;
    const item = known?.find(json.subarray(start, end), i);
    if (item !== undefined && !run.seen.has(item.external_id)) {
      knownCount++;
      if (validating) {
        run.seen.set(item.external_id, i);
        if (run.count === 0) products.push(new ReceivedProduct(item, { json, start, end, index: i, opts }));
      }
      continue;
    }
    // Products past the point where validation stops are still parsed: a body that is not JSON is refused as
    // such, whatever else is wrong with it.
    const raw = parseItem(json, start, end);
    if (raw === NOT_JSON) return null;
    if (validating) validating = addProduct(run, raw, i, products);
  }
  return run.count === 0 ? { ok: true, products, known: knownCount } : failed(run);
}

/** A product known by its bytes as it crosses to another thread: what was known of it, and where its bytes are. */
export interface KnownPlace {
  external_id: string;
  fingerprint: string;
  id: string;
  start: number;
  end: number;
  index: number;
}

/** Where a product known by its bytes is in the body validation found it in. */
export function placeOf(product: KnownProduct): KnownPlace {
  if (!(product instanceof ReceivedProduct))
    throw new Error(`product ${product.external_id} was not known by validation`);
  return product.place();
}

/** The product known by its bytes at `place` of `json`, validated under `opts`, as validateCatalogueJson made it. */
export function knownProductAt(json: Uint8Array, place: KnownPlace, opts: ValidateOptions): KnownProduct {
  const { start, end, index } = place;
  return new ReceivedProduct(place, { json, start, end, index, opts });
}

/** Where a known product's bytes are, and what they are validated against when they are needed after all. */
interface ProductBytes {
  json: Uint8Array;
  start: number;
  end: number;
  index: number;
  opts: ValidateOptions;
}

/** A product known by its bytes; its content is parsed and normalized only if the sync writes it. */
class ReceivedProduct implements KnownProduct {
  readonly external_id: string;
  readonly fingerprint: string;
  readonly id: string;
  readonly #bytes: ProductBytes;

  constructor(known: { external_id: string; fingerprint: string; id: string }, bytes: ProductBytes) {
    this.external_id = known.external_id;
    this.fingerprint = known.fingerprint;
    this.id = known.id;
    this.#bytes = bytes;
  }

  place(): KnownPlace {
    const { start, end, index } = this.#bytes;
    return { external_id: this.external_id, fingerprint: this.fingerprint, id: this.id, start, end, index };
  }

  content(): NormalizedProduct | null {
    const { json, start, end, index, opts } = this.#bytes;
    const run = newRun(opts);
    const raw = parseItem(json, start, end);
    const product = raw === NOT_JSON ? null : validateProduct(run, raw, index);
    if (product === null || run.count !== 0) return null;
    product.fingerprint = fingerprintOf(product);
    // Only bytes known wrongly (a stored receipt altered, or one of another context) differ here.
    return product.fingerprint === this.fingerprint && product.external_id === this.external_id ? product : null;
  }
}

// A byte-order mark inside the body is kept, so that JSON.parse refuses it as it does in the whole body (where only
// a leading one is dropped, and findProductExtents leaves a leading one to the whole-body path).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const NOT_JSON = Symbol('not JSON');

function parseItem(json: Uint8Array, start: number, end: number): unknown {
  try {
    return JSON.parse(strictUtf8.decode(json.subarray(start, end)));
  } catch {
    return NOT_JSON;
  }
}

function newRun(opts: ValidateOptions): Run {
  return {
    errors: [],
    count: 0,
    categories: opts.categories,
    categoryDetail: null,
    defaultCurrency: opts.defaultCurrency.toUpperCase(),
    seen: new Map(),
    shared: new Map(),
    keepsNormalized: opts.verdictOnly !== true,
  };
}

/** Reports a `products` array of `count` items that is empty or too long; true when its items are to be validated. */
function checkCount(run: Run, count: number, maxProducts: number): boolean {
  if (count === 0) {
    // An empty catalogue would deactivate the whole listing; a host leaving the directory is suspended instead.
    report(run, '/products', 'min_items', 'must hold at least 1 product');
    return false;
  }
  if (count > maxProducts) {
    report(run, '/products', 'max_items', `must hold at most ${maxProducts} products`);
    return false;
  }
  return true;
}

/**
 * Validates product i (in payload order) and, while the payload has no error, adds it to `products`, normalized.
 * False once more errors are found than are listed: the products after it need not be looked at.
 */
function addProduct(run: Run, raw: unknown, i: number, products: (NormalizedProduct | KnownProduct)[]): boolean {
  const product = validateProduct(run, raw, i);
  // Once anything is wrong the products are never used: skip the fingerprints, keep looking for errors.
  if (run.count === 0 && product !== null && run.keepsNormalized) {
    product.fingerprint = fingerprintOf(product);
    products.push(product);
  }
  return run.count <= MAX_ERRORS_LISTED;
}

function result<P extends CatalogueProduct>(run: Run, products: P[]): ValidationResult<P> {
  return run.count === 0 ? { ok: true, products, known: 0 } : failed(run);
}

function failed(run: Run): { ok: false; errors: ValidationIssue[]; truncated: boolean } {
  return { ok: false, errors: run.errors, truncated: run.count > MAX_ERRORS_LISTED };
}

function report(run: Run, pointer: string, code: ValidationCode, detail: string): void {
  run.count++;
  if (run.errors.length < MAX_ERRORS_LISTED) run.errors.push({ pointer, code, detail });
}

/** Returns the normalized product (fingerprint still empty), or null when it has errors (already reported). */
function validateProduct(run: Run, raw: unknown, i: number): NormalizedProduct | null {
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
    fingerprint: '',
  };
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

// PostgreSQL text cannot hold U+0000, and its JSON functions refuse a UTF-16 surrogate without its pair (which
// JSON.parse lets through from "\ud800"). Such strings are refused here, where the error can name the field,
// rather than failing the transaction. Without the u flag these classes match single UTF-16 code units.
const SUSPECT_CHARACTER = /[\u0000\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Reports U+0000 or a lone surrogate in a stored string; true when the text can be stored. */
function checkText(run: Run, s: string, pointer: string, what = ''): boolean {
  // The common case (no NUL, no character outside the Basic Multilingual Plane) costs one native scan.
  if (!SUSPECT_CHARACTER.test(s)) return true;
  if (s.includes('\u0000')) {
    report(run, pointer, 'control_characters', `${what}must not contain U+0000 (NUL)`);
    return false;
  }
  if (LONE_SURROGATE.test(s)) {
    report(
      run,
      pointer,
      'invalid_unicode',
      `${what}must be well-formed Unicode (a UTF-16 surrogate without its pair, e.g. "\\ud800", cannot be stored)`,
    );
    return false;
  }
  return true;
}

/** Reports a length error for a product field; true when the string is within bounds. */
function checkLength(run: Run, s: string, min: number, max: number, i: number, field: string, suffix: string): boolean {
  const issue = lengthIssue(s, min, max);
  if (issue === null) return true;
  report(run, `/products/${i}/${field}`, issue, lengthDetail(issue, min, max, suffix));
  return false;
}

/** Lengths are Unicode code points (a 4-byte character such as an emoji is one), counted only when it matters. */
function lengthIssue(s: string, min: number, max: number): 'min_length' | 'max_length' | null {
  const units = s.length;
  // Code points never outnumber UTF-16 units, and a non-empty string has at least one.
  if (units < min) return 'min_length';
  if (units <= max && min <= 1) return null;
  const points = codePointLength(s);
  if (points < min) return 'min_length';
  if (points > max) return 'max_length';
  return null;
}

function lengthDetail(issue: 'min_length' | 'max_length', min: number, max: number, suffix: string): string {
  return issue === 'min_length'
    ? `must have at least ${min} character${min === 1 ? '' : 's'}${suffix}`
    : `must have at most ${max} characters${suffix}`;
}

function codePointLength(s: string): number {
  let n = s.length;
  for (let k = 0; k < s.length - 1; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(k + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        k++;
      }
    }
  }
  return n;
}

/** RFC 6901: "~" → "~0", "/" → "~1". */
function escapeToken(key: string): string {
  if (key.indexOf('~') === -1 && key.indexOf('/') === -1) return key;
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mustBe(expected: string, value: unknown): string {
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return `must be ${expected}, not ${actual}`;
}
