// The products aggregate: what a host lists, read for planning and written from a plan in bulk.
import { contentOf, type ExistingProduct, type NormalizedProduct, type PlannedProduct, type PricingTier, type ProductContent, type ProductStatus, type SyncPlan } from '../catalog/types.js';
import type { BatchOptions, Queryable, QueryResult, Row, Statement, Transaction } from './db.js';
import { iso, isoOrNull, productContentOf } from './rows.js';

export interface StoredProduct extends ProductContent {
  id: string;
  status: ProductStatus;
  created_at: string;
  updated_at: string;
  deactivated_at: string | null;
}

/** The statement reading what a host lists, for planning; its rows are read by existingProductsOf. */
export function existingProductsStatement(hostId: number): Statement {
  return { sql: 'SELECT external_id, id, status, fingerprint FROM products WHERE host_id = $1', params: [hostId] };
}

export function existingProductsOf(rows: readonly Row[]): Map<string, ExistingProduct> {
  const existing = new Map<string, ExistingProduct>();
  for (const row of rows as unknown as readonly ExistingProduct[]) existing.set(row.external_id, row);
  return existing;
}

// Products are written with COPY: the fastest way into PostgreSQL, and its text format is cheap to produce.
const CONTENT_COLUMNS = `name, category, price, currency, description, specs, pricing_tiers, setup_fee, contract_duration,
  features, datacenter_locations, fingerprint`;
/** 'now' is read by PostgreSQL as the transaction's start time, the same instant as now() in the statements. */
const COPY_NEW_PRODUCTS = `COPY products (host_id, external_id, id, status, ${CONTENT_COLUMNS}, created_at, updated_at)`;
const COPY_CHANGES = `COPY product_changes (external_id, ${CONTENT_COLUMNS})`;
/** rows per chunk handed to COPY: large enough to amortize the stream, small enough to never hold a catalogue */
const ROWS_PER_CHUNK = 512;

const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text value in COPY text format: backslash, tab and line breaks escaped. */
export function copyText(value: string): string {
  return COPY_SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : value;
}

/** JSON in COPY text format: JSON.stringify never emits raw tabs or line breaks, only backslashes need doubling. */
function copyJson(value: unknown): string {
  if (value === null) return '\\N';
  return escapeJsonForCopy(JSON.stringify(value));
}

function escapeJsonForCopy(json: string): string {
  return json.includes('\\') ? json.replaceAll('\\', '\\\\') : json;
}

/** Strings JSON.stringify would escape: quotes, backslashes, control characters, surrogates (lone ones become \u). */
const JSON_SPECIAL = /["\\\u0000-\u001f\ud800-\udfff]/;

// Lists of strings and pricing tiers are written by hand: JSON.stringify's per-call cost dominated these small values.
function copyStringList(list: readonly string[] | null): string {
  if (list === null) return '\\N';
  let json = '[';
  for (let i = 0; i < list.length; i++) {
    const item = list[i]!;
    json += (i === 0 ? '"' : ',"') + (JSON_SPECIAL.test(item) ? JSON.stringify(item).slice(1, -1) : item) + '"';
  }
  return escapeJsonForCopy(json + ']');
}

/** Prices are finite numbers and canonical periods plain words, whose JavaScript and JSON spellings are the same. */
function copyTiers(tiers: readonly PricingTier[] | null): string {
  if (tiers === null) return '\\N';
  let json = '[';
  for (let i = 0; i < tiers.length; i++) {
    const { period, price, canonical_period: canonical } = tiers[i]!;
    json +=
      (i === 0 ? '{"period":"' : ',{"period":"') + (JSON_SPECIAL.test(period) ? JSON.stringify(period).slice(1, -1) : period) +
      '","price":' + price + ',"canonical_period":' + (canonical === null ? 'null' : '"' + canonical + '"') + '}';
  }
  return escapeJsonForCopy(json + ']');
}

/** The content columns of a product, tab-separated, in CONTENT_COLUMNS order. */
function copyContent(p: NormalizedProduct): string {
  return (
    copyText(p.name) + '\t' + copyText(p.category) + '\t' + (p.price === null ? '\\N' : p.price) + '\t' + copyText(p.currency) + '\t' +
    (p.description === null ? '\\N' : copyText(p.description)) + '\t' + copyJson(p.specs) + '\t' +
    copyTiers(p.pricing_tiers) + '\t' + (p.setup_fee === null ? '\\N' : p.setup_fee) + '\t' +
    (p.contract_duration === null ? '\\N' : copyText(p.contract_duration)) + '\t' + copyStringList(p.features) + '\t' +
    copyStringList(p.datacenter_locations) + '\t' + p.fingerprint
  );
}

function* copyChunks<T>(items: readonly T[], row: (item: T) => string): Generator<string> {
  for (let start = 0; start < items.length; start += ROWS_PER_CHUNK) {
    let chunk = '';
    const end = Math.min(start + ROWS_PER_CHUNK, items.length);
    for (let k = start; k < end; k++) chunk += row(items[k]!) + '\n';
    yield chunk;
  }
}

/**
 * Up to this many new (or changed) products are written by one statement in the sync's last round trip, from
 * their JSON; more go by COPY, which streams and is faster per row but costs round trips of its own.
 */
export const WRITE_BY_STATEMENT_MAX = 256;

/** The content columns as json_to_recordset reads them from the products' JSON. */
const CONTENT_RECORD = `name text, category text, price numeric, currency text, description text, specs json,
  pricing_tiers json, setup_fee numeric, contract_duration text, features jsonb, datacenter_locations jsonb,
  fingerprint text`;

/** Products as the JSON array json_to_recordset reads: external_id, id and the normalized content of each. */
function recordsJson(products: readonly PlannedProduct[]): string {
  return JSON.stringify(products.map((p) => ({ ...contentOf(p.product), id: p.id })));
}

const SET_CONTENT = `status = 'active', name = x.name, category = x.category, price = x.price,
  currency = x.currency, description = x.description, specs = x.specs, pricing_tiers = x.pricing_tiers,
  setup_fee = x.setup_fee, contract_duration = x.contract_duration, features = x.features,
  datacenter_locations = x.datacenter_locations, fingerprint = x.fingerprint,
  updated_at = now(), deactivated_at = NULL`;

/**
 * Writes a plan: new products by INSERT or COPY, changed ones by UPDATE from their JSON or from a temporary table
 * filled by COPY, deactivations by one UPDATE. Unchanged products are not touched. The caller holds the host's row
 * lock, so no other sync inserts the same new products concurrently. `followedBy` gives the caller's statements to
 * run in the same round trip as the last write, once the writes before it are done (and `options` for that
 * round trip); their results are returned.
 */
export async function applyPlan(
  tx: Transaction,
  hostId: number,
  plan: SyncPlan,
  followedBy: () => readonly Statement[],
  options?: BatchOptions,
): Promise<QueryResult<Row>[]> {
  const created: PlannedProduct[] = [];
  const changed: PlannedProduct[] = [];
  for (const planned of plan.products) {
    if (planned.action === 'created') created.push(planned);
    else if (planned.action === 'updated' || planned.action === 'reactivated') changed.push(planned);
  }
  const last: Statement[] = [];

  if (created.length > WRITE_BY_STATEMENT_MAX) {
    const prefix = hostId + '\t';
    await tx.copyFrom(
      COPY_NEW_PRODUCTS,
      copyChunks(created, (c) => prefix + copyText(c.external_id) + '\t' + c.id + '\tactive\t' + copyContent(contentOf(c.product)) + '\tnow\tnow'),
    );
  } else if (created.length > 0) {
    last.push({
      sql: `INSERT INTO products (host_id, external_id, id, status, ${CONTENT_COLUMNS}, created_at, updated_at)
         SELECT $1, x.external_id, x.id, 'active', ${CONTENT_COLUMNS}, now(), now()
         FROM json_to_recordset($2::json) AS x (external_id text, id text, ${CONTENT_RECORD})`,
      params: [hostId, recordsJson(created)],
    });
  }

  if (changed.length > WRITE_BY_STATEMENT_MAX) {
    await tx.query(
      `CREATE TEMPORARY TABLE product_changes ON COMMIT DROP AS
         SELECT external_id, ${CONTENT_COLUMNS} FROM products WITH NO DATA`,
    );
    await tx.copyFrom(COPY_CHANGES, copyChunks(changed, (c) => copyText(c.external_id) + '\t' + copyContent(contentOf(c.product))));
    await tx.query(
      `UPDATE products p SET ${SET_CONTENT} FROM product_changes x WHERE p.host_id = $1 AND p.external_id = x.external_id`,
      [hostId],
    );
  } else if (changed.length > 0) {
    last.push({
      sql: `UPDATE products p SET ${SET_CONTENT}
         FROM json_to_recordset($2::json) AS x (external_id text, ${CONTENT_RECORD})
         WHERE p.host_id = $1 AND p.external_id = x.external_id`,
      params: [hostId, recordsJson(changed)],
    });
  }

  if (plan.deactivated.length > 0) {
    // A join, not "IN (SELECT …)": for a host the statistics do not know yet, the planner estimates one active
    // row and picks a semi join that re-reads the whole list per product (50 000 × 50 000: minutes).
    last.push({
      sql: `UPDATE products p SET status = 'inactive', deactivated_at = now(), updated_at = now()
         FROM json_array_elements_text($2::json) AS gone (external_id)
         WHERE p.host_id = $1 AND p.status = 'active' AND p.external_id = gone.external_id`,
      params: [hostId, JSON.stringify(plan.deactivated.map((d) => d.external_id))],
    });
  }
  return (await tx.queries([...last, ...followedBy()], options)).slice(last.length);
}

export type StatusFilter = ProductStatus | 'all';

function toStoredProduct(row: Record<string, unknown>): StoredProduct {
  return {
    id: String(row.id),
    external_id: String(row.external_id),
    ...productContentOf(row),
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
