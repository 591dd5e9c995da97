// Conversions between database values and the API's JSON values, the same for both adapters.

/** An instant as the API writes it (and as store/postgres.ts reads timestamptz): to the millisecond, in UTC. */
const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export function isoOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' && ISO_INSTANT.test(value)) return value;
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}

export function iso(value: unknown): string {
  return isoOrNull(value) ?? '';
}

/** numeric arrives as a decimal string; the API speaks JSON numbers. */
export function numberOrNull(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? value : Number(value);
}

/** json columns arrive parsed from pg and PGlite alike; accept text too in case a driver changes its mind. */
export function jsonOrNull(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? JSON.parse(value) : value;
}
