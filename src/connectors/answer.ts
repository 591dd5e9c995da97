// Reading values out of a billing system's JSON answer, where numbers often come as strings ("25.99", "1") and a
// list may come as an array or as an object keyed by id (PHP's arrays encode either way).

/** The billing system answered, but not in the shape its documentation shows. */
export class BillingAnswerError extends Error {}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A list as an array, or the values of an object keyed by id; null for anything else. */
export function listOf(value: unknown): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (isObject(value)) return Object.values(value);
  return null;
}

/** A decimal amount given as a JSON number or a string such as "25.99" or "-1.00"; null for anything else. */
export function amountOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (!/^-?\d{1,15}(\.\d{1,10})?$/.test(trimmed)) return null;
  return Number(trimmed);
}

/** An id given as a number or a non-empty string, as a string; null for anything else. */
export function idOf(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return null;
}

/** A string field, or null when absent, empty or not a string. */
export function textOf(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** PHP's ways of saying yes in JSON: true, 1, "1", "on", "yes", "true". */
export function isYes(value: unknown): boolean {
  if (value === true || value === 1) return true;
  if (typeof value !== 'string') return false;
  return ['1', 'on', 'yes', 'true'].includes(value.trim().toLowerCase());
}

/**
 * Units in stock given as a whole number or a string of one ("5", "0"); a negative count (a billing system that
 * oversold) is none left. Null for anything else.
 */
export function unitsOf(value: unknown): number | null {
  const amount = amountOf(value);
  if (amount === null || !Number.isInteger(amount)) return null;
  return Math.max(0, amount);
}
