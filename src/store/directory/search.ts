// A search of the public directory: its filters, its sort and where its page starts.
import type { PricePerSort } from '../../catalog/price-per.js';
import type { DiskType, NumericSpec } from '../../catalog/specs.js';
import type { Freshness } from '../freshness.js';

export type DirectorySort = 'price' | 'newest' | 'name' | NumericSpec | PricePerSort;

/** A range of one normalized spec: products without the spec are left out. */
export interface SpecRange {
  key: NumericSpec;
  min?: number;
  max?: number;
}
export type SortOrder = 'asc' | 'desc';

/** Where the previous page ended: its last row's sort key and id, and whether it was among the sold-out plans. */
export interface Keyset {
  key: string;
  id: string;
  soldOut?: boolean;
}

export interface ProductSearch {
  text?: string;
  category?: string;
  /** a location as a visitor types it: a city of the gazetteer by any of its names, a country, or a location as listed (case and spacing ignored) */
  location?: string;
  /** a feature as listed, case and spacing ignored */
  feature?: string;
  /** ISO 3166-1 alpha-2, upper case */
  country?: string;
  ranges?: SpecRange[];
  diskType?: DiskType;
  /** only products priced in this currency; a price sort then orders by the prices as sent, not converted */
  currency?: string;
  /** monthly price at most this, in `currency` (compared as sent, unconverted); excludes unpriced products */
  maxMonthlyPrice?: number;
  /** monthly price (or its monthly equivalent) in EUR at most this; excludes products without a EUR price */
  maxBasePrice?: number;
  hostSlug?: string;
  /** only plans that can be bought: sold-out ones (stock 0) are left out, those whose stock is not tracked kept */
  inStock?: boolean;
  /** when hosts turn stale, and whether stale hosts' products are listed too */
  freshness: Freshness;
  /** only products whose monthly price dropped since this UTC day (YYYY-MM-DD), else the day cards mark drops since */
  priceDrops: { since: string; only: boolean };
  sort: DirectorySort;
  order: SortOrder;
  limit: number;
  after: Keyset | null;
}
