// The sync decision (contract section 2): what the directory holds for a host + the host's catalogue → a plan.

import {
  isKnown,
  type CatalogueProduct,
  type ExistingProduct,
  type KnownProduct,
  type NormalizedProduct,
  type PlannedProduct,
  type SyncPlan,
} from './types.js';

/**
 * Pure and O(n) apart from sorting the deactivated products. `existing` is keyed by external_id and holds the
 * host's products of both statuses. `payload` must come from validateCatalogue: its external_ids are unique
 * (not checked again here).
 */
export function planSync(
  existing: ReadonlyMap<string, ExistingProduct>,
  payload: readonly CatalogueProduct[],
  newProductId: () => string,
): SyncPlan {
  const products = new Array<PlannedProduct>(payload.length);
  // Only the existing products the payload names: a first sync of 50 000 products fills no set at all.
  const kept = new Set<string>();
  let created = 0;
  let updated = 0;
  let unchanged = 0;
  let reactivated = 0;

  for (let i = 0; i < payload.length; i++) {
    const product = payload[i]!;
    const externalId = product.external_id;
    const before = existing.get(externalId);
    if (before === undefined) {
      created++;
      products[i] = { external_id: externalId, id: newProductId(), action: 'created', product };
      continue;
    }
    kept.add(externalId);
    if (before.status === 'inactive') {
      reactivated++;
      products[i] = { external_id: externalId, id: before.id, action: 'reactivated', product };
    } else if (before.fingerprint !== product.fingerprint) {
      updated++;
      products[i] = { external_id: externalId, id: before.id, action: 'updated', product };
    } else {
      unchanged++;
      products[i] = { external_id: externalId, id: before.id, action: 'unchanged', product };
    }
  }

  const deactivated: { external_id: string; id: string }[] = [];
  for (const before of existing.values()) {
    if (before.status === 'active' && !kept.has(before.external_id)) {
      deactivated.push({ external_id: before.external_id, id: before.id });
    }
  }
  // Code-unit order, not locale order: the same plan on every machine.
  deactivated.sort((a, b) => (a.external_id < b.external_id ? -1 : a.external_id > b.external_id ? 1 : 0));

  return {
    products,
    deactivated,
    summary: {
      received: payload.length,
      created,
      updated,
      unchanged,
      reactivated,
      deactivated: deactivated.length,
    },
  };
}

/**
 * The plan for a catalogue of products that the directory holds exactly (each of them active with the same
 * fingerprint, and no other product of the host active): what planSync gives then, every product unchanged, without
 * reading what the directory holds.
 */
export function planUnchanged(payload: readonly KnownProduct[]): SyncPlan {
  const products = new Array<PlannedProduct>(payload.length);
  for (let i = 0; i < payload.length; i++) {
    const product = payload[i]!;
    products[i] = { external_id: product.external_id, id: product.id, action: 'unchanged', product };
  }
  return {
    products,
    deactivated: [],
    summary: {
      received: payload.length,
      created: 0,
      updated: 0,
      unchanged: payload.length,
      reactivated: 0,
      deactivated: 0,
    },
  };
}

/** A product a plan writes: its key, its id and its whole content. */
export interface WrittenProduct {
  external_id: string;
  id: string;
  content: NormalizedProduct;
}

/** What a plan changes in the directory: products to insert, products to overwrite, and those to deactivate. */
export interface ProductWrites {
  created: WrittenProduct[];
  /** updated and reactivated products */
  changed: WrittenProduct[];
  /** external_ids of the active products to deactivate */
  deactivated: string[];
}

/**
 * The writes of a plan, with the content of each written product. A product known by its bytes is parsed now; if
 * its bytes do not validate to what was known of them, `staleAt` is its position in the payload and nothing is
 * written: the catalogue is then to be validated in full.
 */
export function writesOf(plan: SyncPlan): { writes: ProductWrites } | { staleAt: number } {
  const writes: ProductWrites = { created: [], changed: [], deactivated: plan.deactivated.map((d) => d.external_id) };
  for (let i = 0; i < plan.products.length; i++) {
    const { external_id, id, action, product } = plan.products[i]!;
    if (action === 'unchanged') continue;
    const content = isKnown(product) ? product.content() : product;
    if (content === null) return { staleAt: i };
    (action === 'created' ? writes.created : writes.changed).push({ external_id, id, content });
  }
  return { writes };
}
