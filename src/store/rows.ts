// Conversions between database values and the API's JSON values, the same for both adapters.
import type { ProductContent } from '../catalog/types.js';

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
export function jsonOrNull<T>(value: unknown): T | null {
  if (value === null || value === undefined) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** A product row's content columns (prices selected as float8) as the API shows them; external_id is the caller's. */
export function productContentOf(row: Record<string, unknown>): Omit<ProductContent, 'external_id'> {
  return {
    name: String(row.name),
    category: String(row.category),
    price: numberOrNull(row.price),
    currency: String(row.currency),
    description: (row.description as string | null) ?? null,
    specs: jsonOrNull(row.specs),
    pricing_tiers: jsonOrNull(row.pricing_tiers),
    setup_fee: numberOrNull(row.setup_fee),
    contract_duration: (row.contract_duration as string | null) ?? null,
    features: jsonOrNull(row.features),
    datacenter_locations: jsonOrNull(row.datacenter_locations),
  };
}
