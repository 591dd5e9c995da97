// The domain's vocabulary: what a host sends, what the directory keeps, and what a sync decides.

import type { Static } from '@sinclair/typebox';
import type { Content, PricingTierOutput } from './product-fields.js';

/** A pricing tier as kept: the period as the billing system sent it, its price, and the canonical period it names. */
export type PricingTier = Static<typeof PricingTierOutput>;

/** What a product says about itself, normalized: the fields a host sends (product-fields.ts), as the directory keeps them. */
export interface ProductContent extends Content {
  external_id: string;
}

/** One product after validation and normalization: the complete state the directory stores. */
export interface NormalizedProduct extends ProductContent {
  /** digest of every content field (fingerprint.ts) */
  fingerprint: string;
}

/**
 * A product known by its bytes (a receipt, sync/receipts.ts): its external_id and fingerprint are known without
 * parsing it; `content()` parses and normalizes it, for the few that are written, and is null when the bytes do not
 * validate to what was known of them.
 */
export interface KnownProduct {
  external_id: string;
  fingerprint: string;
  /** the id the directory gave it when its receipt was written */
  id: string;
  content(): NormalizedProduct | null;
}

/** A product of a valid catalogue, as validation gives it: normalized, or known by its bytes. */
export type CatalogueProduct = NormalizedProduct | KnownProduct;

export function isKnown(product: CatalogueProduct): product is KnownProduct {
  return 'content' in product;
}

export type ProductStatus = 'active' | 'inactive';

/** What the planner needs to know about a product the directory already holds. */
export interface ExistingProduct {
  external_id: string;
  id: string;
  status: ProductStatus;
  fingerprint: string;
}

export const PRODUCT_ACTIONS = ['created', 'updated', 'unchanged', 'reactivated'] as const;
export type ProductAction = (typeof PRODUCT_ACTIONS)[number];

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
