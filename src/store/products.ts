// The products aggregate as its host reads it back: its own listing, every field as the directory keeps it. A sync
// writes products through store/sync.ts.
import type { ProductContent, ProductStatus } from '../catalog/types.js';
import type { Queryable, Row } from './db.js';
import { contentOfRow, SELECT_CONTENT } from './product-columns.js';
import { iso, isoOrNull } from './rows.js';

export interface StoredProduct extends ProductContent {
  id: string;
  status: ProductStatus;
  created_at: string;
  updated_at: string;
  deactivated_at: string | null;
}

function toStoredProduct(row: Row): StoredProduct {
  return {
    id: String(row.id),
    external_id: String(row.external_id),
    ...contentOfRow(row),
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
  page: { status: ProductStatus | 'all'; limit: number; afterId: string | null },
): Promise<{ products: StoredProduct[]; lastId: string | null; more: boolean }> {
  const { rows } = await db.query(
    `SELECT p.id, p.external_id, ${SELECT_CONTENT}, p.status, p.created_at, p.updated_at, p.deactivated_at
     FROM products p
     WHERE p.host_id = $1 AND ($2::text = 'all' OR p.status = $2::text) AND ($3::text IS NULL OR p.id > $3::text)
     ORDER BY p.id
     LIMIT $4`,
    [hostId, page.status, page.afterId, page.limit + 1],
  );
  const more = rows.length > page.limit;
  const products = rows.slice(0, page.limit).map(toStoredProduct);
  return { products, lastId: products.at(-1)?.id ?? null, more };
}

/** The names of products by id, whatever their status, with their host's: how a page names a plan that was withdrawn. */
export async function productNames(
  db: Queryable,
  ids: readonly string[],
): Promise<Map<string, { name: string; host: string }>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT p.id, p.name, h.name AS host_name FROM products p JOIN hosts h ON h.id = p.host_id WHERE p.id = ANY ($1::text[])`,
    [ids],
  );
  return new Map(rows.map((row) => [String(row.id), { name: String(row.name), host: String(row.host_name) }]));
}
