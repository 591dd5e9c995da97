// Derives again what an older version of the parser or the gazetteer stored (catalog/derived.ts): a host that
// re-sends a product unchanged never has it rewritten, so values derived by an older version would otherwise stay.
import { DERIVED_VERSION, derivedOf } from '../catalog/derived.js';
import type { Queryable } from './db.js';
import { contentOfRow, DERIVED_RECORD, SELECT_CONTENT, SET_DERIVED } from './product-columns.js';

const BATCH = 1000;

/**
 * Every product (both statuses) whose derived columns are of another version, derived again in batches by id. A
 * product a sync rewrites meanwhile is left to the sync (its fingerprint changed): the sync wrote current values.
 * Returns how many were rewritten.
 */
export async function deriveStaleProducts(db: Queryable, options: { batch?: number; stop?: () => boolean } = {}): Promise<number> {
  const batch = options.batch ?? BATCH;
  let after = '';
  let rewritten = 0;
  for (;;) {
    if (options.stop?.()) return rewritten;
    const { rows } = await db.query(
      `SELECT p.host_id, p.id, p.fingerprint, ${SELECT_CONTENT}
       FROM products p WHERE p.derived_version <> $1 AND p.id > $2 ORDER BY p.id LIMIT $3`,
      [DERIVED_VERSION, after, batch],
    );
    if (rows.length === 0) return rewritten;
    after = String(rows.at(-1)!.id);
    const records = rows.map((row) => ({ host_id: Number(row.host_id), id: String(row.id), fingerprint: String(row.fingerprint), ...derivedOf(contentOfRow(row)) }));
    const result = await db.query(
      `UPDATE products p SET ${SET_DERIVED}
       FROM json_to_recordset($1::json) AS x (host_id bigint, id text, fingerprint text, ${DERIVED_RECORD})
       WHERE p.host_id = x.host_id AND p.id = x.id AND p.fingerprint = x.fingerprint`,
      [JSON.stringify(records)],
    );
    rewritten += result.rowCount ?? 0;
  }
}
