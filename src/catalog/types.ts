// The domain's vocabulary: what a host sends, what the directory keeps, and what a sync decides.

import type { CanonicalPeriod } from './billing-periods.js';

export interface PricingTier {
  /** as the billing system sent it ("Monthly", "1 year", "Semi-Annually") */
  period: string;
  price: number;
  /** the period it names (billing-periods.ts), or null when it names none the directory knows */
  canonical_period: CanonicalPeriod | null;
}

/** What a product says about itself, normalized: the fields a host sends, as the directory keeps them. */
export interface ProductContent {
  external_id: string;
  /** trimmed */
  name: string;
  category: string;
  /** finite, 0 ≤ price ≤ 1e9; -0 becomes 0; null when the host gave none ("price on request") */
  price: number | null;
  /** upper case ISO 4217; the host's default currency when the payload had none */
  currency: string;
  description: string | null;
  /** every value as a string; key order as given; a null-prototype object so that "__proto__" is plain data */
  specs: Record<string, string> | null;
  pricing_tiers: PricingTier[] | null;
  setup_fee: number | null;
  /** ISO 8601 duration of one unit (P12M) or "none" */
  contract_duration: string | null;
  features: string[] | null;
  datacenter_locations: string[] | null;
}

/** One product after validation and normalization: the complete state the directory stores. */
export interface NormalizedProduct extends ProductContent {
  /** digest of the canonical serialization of every field above except external_id */
  fingerprint: string;
}

/**
 * A product whose bytes a receipt vouches for (receipts.ts): its external_id and fingerprint are known without
 * parsing it; `content()` parses and normalizes it, for the few that are written.
 */
export interface KnownProduct {
  external_id: string;
  fingerprint: string;
  /** the id the directory gave it when its receipt was written */
  id: string;
  content(): NormalizedProduct;
}

/** A product of a valid catalogue, as validation gives it: normalized, or known from a receipt. */
export type CatalogueProduct = NormalizedProduct | KnownProduct;

export function isKnown(product: CatalogueProduct): product is KnownProduct {
  return 'content' in product;
}

export function contentOf(product: CatalogueProduct): NormalizedProduct {
  return isKnown(product) ? product.content() : product;
}

export type ProductStatus = 'active' | 'inactive';

/** What the planner needs to know about a product the directory already holds. */
export interface ExistingProduct {
  external_id: string;
  id: string;
  status: ProductStatus;
  fingerprint: string;
}

export type ProductAction = 'created' | 'updated' | 'unchanged' | 'reactivated';

export interface PlannedProduct {
  external_id: string;
  id: string;
  action: ProductAction;
  product: CatalogueProduct;
}

export interface SyncSummary {
  received: number;
  created: number;
  updated: number;
  unchanged: number;
  reactivated: number;
  deactivated: number;
}

export interface SyncPlan {
  /** one entry per payload product, in payload order */
  products: PlannedProduct[];
  /** active products absent from the payload */
  deactivated: { external_id: string; id: string }[];
  summary: SyncSummary;
}

/** One problem found in a request body; pointer is an RFC 6901 JSON Pointer into the request. */
export interface ValidationIssue {
  pointer: string;
  code: string;
  detail: string;
}
