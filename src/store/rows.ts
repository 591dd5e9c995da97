// Conversions between database values and the API's JSON values, the same for both adapters.

export function isoOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
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
