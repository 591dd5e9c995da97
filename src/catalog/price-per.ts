// What a plan costs per unit of what it gives: per GB of RAM, per CPU core, per GB of disk, and per TB of traffic or
// per player slot where its category's family has them. Pure: from a monthly price and the normalized specs.
import { FAMILY_SPECS, specFamily, UNLIMITED, type ComparableSpecs, type NumericSpec } from './specs.js';

/** Each price-per figure and the normalized spec it divides by. */
export const PRICE_PER_SPEC = {
  ram_gb: 'ram_gb',
  cpu_core: 'cpu_cores',
  disk_gb: 'disk_gb',
  traffic_tb: 'bandwidth_tb',
  player_slot: 'player_slots',
} as const satisfies Record<string, NumericSpec>;
export type PricePerKey = keyof typeof PRICE_PER_SPEC;

/** The figures every product carries (null where unknown); the others only where the category's family has the spec. */
export const PRICE_PER_ALWAYS = ['ram_gb', 'cpu_core', 'disk_gb'] as const satisfies readonly PricePerKey[];
const PRICE_PER_WHERE_GIVEN = ['traffic_tb', 'player_slot'] as const satisfies readonly PricePerKey[];

export const PRICE_PER_LABELS: Record<PricePerKey, string> = {
  ram_gb: 'per GB RAM',
  cpu_core: 'per CPU core',
  disk_gb: 'per GB disk',
  traffic_tb: 'per TB traffic',
  player_slot: 'per player slot',
};

/** The sorts by a price per resource (each served by an index: migration 081). */
export const PRICE_PER_SORTS = ['price_per_ram_gb', 'price_per_cpu_core', 'price_per_disk_gb'] as const;
export type PricePerSort = (typeof PRICE_PER_SORTS)[number];

/** The figure a price-per sort orders by. */
export const PRICE_PER_SORT_KEY: Record<PricePerSort, PricePerKey> = {
  price_per_ram_gb: 'ram_gb',
  price_per_cpu_core: 'cpu_core',
  price_per_disk_gb: 'disk_gb',
};

export type PricePer = Partial<Record<PricePerKey, number | null>> &
  Record<(typeof PRICE_PER_ALWAYS)[number], number | null>;

/** Price-per figures are shown to four decimals: a GB of a dedicated server's disk may cost a hundredth of a cent. */
const DECIMALS = 1e4;

/** A monthly price per unit of an amount; null without a price, or for an amount of none or unlimited. */
export function perUnit(monthly: number | null, amount: number | undefined): number | null {
  if (monthly === null || amount === undefined || !(amount > 0) || amount >= UNLIMITED) return null;
  return Math.round((monthly / amount) * DECIMALS) / DECIMALS;
}

/** The price-per figures of a category: RAM, cores and disk always; traffic and slots where its family has them. */
export function pricePerKeys(category: string): PricePerKey[] {
  const family = FAMILY_SPECS[specFamily(category)];
  return [...PRICE_PER_ALWAYS, ...PRICE_PER_WHERE_GIVEN.filter((key) => family.includes(PRICE_PER_SPEC[key]))];
}

/** A plan's monthly price (in any one currency) per unit of each resource of its category. */
export function pricePer(monthly: number | null, specs: ComparableSpecs, category: string): PricePer {
  const figures: Partial<Record<PricePerKey, number | null>> = {};
  for (const key of pricePerKeys(category)) figures[key] = perUnit(monthly, specs[PRICE_PER_SPEC[key]]);
  return figures as PricePer;
}
