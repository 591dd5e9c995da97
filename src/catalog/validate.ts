// Validation and normalization of a sync payload (contract section 4) in one pass, collecting every error.
// Hand-written rather than compiled from the schema: 50 000 products must pass in tens of milliseconds, the errors
// need the contract's codes and pointers, and normalization (trim, currency, specs, durations) happens on the way.

import { type KnownItems, NOT_JSON, ReceivedProduct, parseItem } from './known-products.js';
import { findProductExtents } from './product-extents.js';
import type { CatalogueProduct, NormalizedProduct, ValidationIssue } from './types.js';
import { addProduct } from './validate-product.js';
import {
  type Run,
  type ValidateOptions,
  checkCount,
  escapeToken,
  failed,
  isObject,
  mustBe,
  newRun,
  report,
} from './validation-run.js';

/**
 * The version of what a product's bytes validate and normalize to: raise it with any change to that (a rule, a limit,
 * a normalization, the fingerprint), never for a change that leaves every answer as it was. Receipts
 * (sync/receipts.ts) hold only under the version they were written with, so each host's next sync after a raise
 * validates its catalogue whole once. test/catalog/validation-version.test.ts records what a varied set of products
 * validates to under this version, and fails when that changes while the version does not.
 */
export const VALIDATION_VERSION = 2;

export type ValidationResult<P extends CatalogueProduct = CatalogueProduct> =
  | {
      ok: true;
      products: P[];
      /** how many of them were known by their bytes (validateCatalogueJson with KnownItems), not parsed */
      known: number;
    }
  | { ok: false; errors: ValidationIssue[]; truncated: boolean };

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

function result<P extends CatalogueProduct>(run: Run, products: P[]): ValidationResult<P> {
  return run.count === 0 ? { ok: true, products, known: 0 } : failed(run);
}
