// One validation run's state and how it reports: the error list and its cap, shared values, and the checks of text
// and length that every field uses.

import { MAX_ERRORS_LISTED } from './limits.js';
import type { ValidationIssue } from './types.js';

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

/** Mutable state of one validation run, passed to plain functions instead of closing over it. */
export interface Run {
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
export function shared(run: Run, value: string): string {
  const kept = run.shared.get(value);
  if (kept !== undefined) return kept;
  if (run.shared.size < SHARED_VALUES_MAX) run.shared.set(value, value);
  return value;
}

export function newRun(opts: ValidateOptions): Run {
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
export function checkCount(run: Run, count: number, maxProducts: number): boolean {
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

export function failed(run: Run): { ok: false; errors: ValidationIssue[]; truncated: boolean } {
  return { ok: false, errors: run.errors, truncated: run.count > MAX_ERRORS_LISTED };
}

export function report(run: Run, pointer: string, code: ValidationCode, detail: string): void {
  run.count++;
  if (run.errors.length < MAX_ERRORS_LISTED) run.errors.push({ pointer, code, detail });
}

// PostgreSQL text cannot hold U+0000, and its JSON functions refuse a UTF-16 surrogate without its pair (which
// JSON.parse lets through from "\ud800"). Such strings are refused here, where the error can name the field,
// rather than failing the transaction. Without the u flag these classes match single UTF-16 code units.
const SUSPECT_CHARACTER = /[\u0000\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Reports U+0000 or a lone surrogate in a stored string; true when the text can be stored. */
export function checkText(run: Run, s: string, pointer: string, what = ''): boolean {
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
export function checkLength(
  run: Run,
  s: string,
  min: number,
  max: number,
  i: number,
  field: string,
  suffix: string,
): boolean {
  const issue = lengthIssue(s, min, max);
  if (issue === null) return true;
  report(run, `/products/${i}/${field}`, issue, lengthDetail(issue, min, max, suffix));
  return false;
}

/** Lengths are Unicode code points (a 4-byte character such as an emoji is one), counted only when it matters. */
export function lengthIssue(s: string, min: number, max: number): 'min_length' | 'max_length' | null {
  const units = s.length;
  // Code points never outnumber UTF-16 units, and a non-empty string has at least one.
  if (units < min) return 'min_length';
  if (units <= max && min <= 1) return null;
  const points = codePointLength(s);
  if (points < min) return 'min_length';
  if (points > max) return 'max_length';
  return null;
}

export function lengthDetail(issue: 'min_length' | 'max_length', min: number, max: number, suffix: string): string {
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
export function escapeToken(key: string): string {
  if (key.indexOf('~') === -1 && key.indexOf('/') === -1) return key;
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function mustBe(expected: string, value: unknown): string {
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return `must be ${expected}, not ${actual}`;
}
