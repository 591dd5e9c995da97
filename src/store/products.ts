// The products aggregate: what a host lists, read for planning and written from a plan in bulk.
import type { ExistingProduct, NormalizedProduct, PricingTier, ProductStatus, SyncPlan } from '../catalog/types.js';
import type { Queryable } from './db.js';
import { iso, isoOrNull, jsonOrNull, numberOrNull } from './rows.js';

export interface StoredProduct {
  id: string;
  external_id: string;
  name: string;
  category: string;
  price: number;
  currency: string;
  description: string | null;
  specs: Record<string, string> | null;
  pricing_tiers: PricingTier[] | null;
  setup_fee: number | null;
  contract_duration: string | null;
  features: string[] | null;
  datacenter_locations: string[] | null;
  status: ProductStatus;
  created_at: string;
  updated_at: string;
  deactivated_at: string | null;
}

export async function loadExistingProducts(tx: Queryable, hostId: number): Promise<Map<string, ExistingProduct>> {
  const { rows } = await tx.query<ExistingProduct>(
    'SELECT external_id, id, status, fingerprint FROM products WHERE host_id = $1',
    [hostId],
  );
  const existing = new Map<string, ExistingProduct>();
  for (const row of rows) existing.set(row.external_id, row);
  return existing;
}

// The record shape json_to_recordset reads: one JSON text parameter carries every row of a statement.
const RECORD = `x(external_id text, id text, name text, category text, price numeric, currency text,
  description text, specs json, pricing_tiers json, setup_fee numeric, contract_duration text,
  features jsonb, datacenter_locations jsonb, fingerprint text)`;

function recordsOf(products: { id: string; product: NormalizedProduct }[]): string {
  return JSON.stringify(
    products.map(({ id, product: p }) => ({
      external_id: p.external_id,
      id,
      name: p.name,
      category: p.category,
      price: p.price,
      currency: p.currency,
      description: p.description,
      specs: p.specs,
      pricing_tiers: p.pricing_tiers,
      setup_fee: p.setup_fee,
      contract_duration: p.contract_duration,
      features: p.features,
      datacenter_locations: p.datacenter_locations,
      fingerprint: p.fingerprint,
    })),
  );
}

/** Writes a plan in at most three statements; unchanged products are not touched. */
export async function applyPlan(tx: Queryable, hostId: number, plan: SyncPlan): Promise<void> {
  const created = plan.products.filter((p) => p.action === 'created');
  const changed = plan.products.filter((p) => p.action === 'updated' || p.action === 'reactivated');

  if (created.length > 0) {
    await tx.query(
      `INSERT INTO products (host_id, external_id, id, status, name, category, price, currency, description, specs,
         pricing_tiers, setup_fee, contract_duration, features, datacenter_locations, fingerprint, created_at, updated_at)
       SELECT $1, x.external_id, x.id, 'active', x.name, x.category, x.price, x.currency, x.description, x.specs,
         x.pricing_tiers, x.setup_fee, x.contract_duration, x.features, x.datacenter_locations, x.fingerprint, now(), now()
       FROM json_to_recordset($2::json) AS ${RECORD}`,
      [hostId, recordsOf(created)],
    );
  }
  if (changed.length > 0) {
    await tx.query(
      `UPDATE products p SET status = 'active', name = x.name, category = x.category, price = x.price,
         currency = x.currency, description = x.description, specs = x.specs, pricing_tiers = x.pricing_tiers,
         setup_fee = x.setup_fee, contract_duration = x.contract_duration, features = x.features,
         datacenter_locations = x.datacenter_locations, fingerprint = x.fingerprint,
         updated_at = now(), deactivated_at = NULL
       FROM json_to_recordset($2::json) AS ${RECORD}
       WHERE p.host_id = $1 AND p.external_id = x.external_id`,
      [hostId, recordsOf(changed)],
    );
  }
  if (plan.deactivated.length > 0) {
    // A join, not "IN (SELECT …)": for a host the statistics do not know yet, the planner estimates one active
    // row and picks a semi join that re-reads the whole list per product (50 000 × 50 000: minutes).
    await tx.query(
      `UPDATE products p SET status = 'inactive', deactivated_at = now(), updated_at = now()
       FROM json_array_elements_text($2::json) AS gone (external_id)
       WHERE p.host_id = $1 AND p.status = 'active' AND p.external_id = gone.external_id`,
      [hostId, JSON.stringify(plan.deactivated.map((d) => d.external_id))],
    );
  }
}

export type StatusFilter = ProductStatus | 'all';

function toStoredProduct(row: Record<string, unknown>): StoredProduct {
  return {
    id: String(row.id),
    external_id: String(row.external_id),
    name: String(row.name),
    category: String(row.category),
    price: numberOrNull(row.price) ?? 0,
    currency: String(row.currency),
    description: (row.description as string | null) ?? null,
    specs: jsonOrNull(row.specs),
    pricing_tiers: jsonOrNull(row.pricing_tiers),
    setup_fee: numberOrNull(row.setup_fee),
    contract_duration: (row.contract_duration as string | null) ?? null,
    features: jsonOrNull(row.features),
    datacenter_locations: jsonOrNull(row.datacenter_locations),
    status: row.status as ProductStatus,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    deactivated_at: isoOrNull(row.deactivated_at),
  };
}

/** One page of a host's products in id order (creation order); afterId is the previous page's last id. */
export async function listProducts(
  db: Queryable,
  hostId: number,
  page: { status: StatusFilter; limit: number; afterId: string | null },
): Promise<{ products: StoredProduct[]; lastId: string | null; more: boolean }> {
  const { rows } = await db.query(
    `SELECT id, external_id, name, category, price::float8 AS price, currency, description, specs, pricing_tiers,
       setup_fee::float8 AS setup_fee, contract_duration, features, datacenter_locations, status,
       created_at, updated_at, deactivated_at
     FROM products
     WHERE host_id = $1 AND ($2::text = 'all' OR status = $2::text) AND ($3::text IS NULL OR id > $3::text)
     ORDER BY id
     LIMIT $4`,
    [hostId, page.status, page.afterId, page.limit + 1],
  );
  const more = rows.length > page.limit;
  const products = rows.slice(0, page.limit).map(toStoredProduct);
  return { products, lastId: products.at(-1)?.id ?? null, more };
}
