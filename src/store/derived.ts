// Derives again what an older version of the parser or the gazetteer stored (catalog/derived.ts): a host that
// re-sends a product unchanged never has it rewritten, so values derived by an older version would otherwise stay.
import { DERIVED_VERSION, derivedOf } from '../catalog/derived.js';
import type { Queryable } from './db.js';
import { contentOfRow, DERIVED_RECORD, SELECT_CONTENT, SET_DERIVED } from './product-columns.js';

const BATCH = 1000;

/**
 * Every product (both statuses) whose derived columns are of another version, derived again host by host, in
 * batches by id: after the one statement that finds those hosts, each reads or writes the rows of one host, as every
 * query outside the directory's reads does (docs/operations.md, "Beyond one PostgreSQL"). A product a sync rewrites meanwhile is
 * left to the sync (its fingerprint changed): the sync wrote current values. Returns how many were rewritten.
 */
export async function deriveStaleProducts(
  db: Queryable,
  options: { batch?: number; stop?: () => boolean } = {},
): Promise<number> {
  const batch = options.batch ?? BATCH;
  // One pass over the table finds the hosts with such rows: usually none, after which nothing more is read.
  const { rows: hosts } = await db.query<{ id: string }>(
    'SELECT DISTINCT host_id::text AS id FROM products WHERE derived_version <> $1 ORDER BY 1',
    [DERIVED_VERSION],
  );
  let rewritten = 0;
  for (const host of hosts) {
    let after = '';
    for (;;) {
      if (options.stop?.()) return rewritten;
      const { rows } = await db.query(
        `SELECT p.id, p.fingerprint, ${SELECT_CONTENT}
         FROM products p WHERE p.host_id = $1 AND p.derived_version <> $2 AND p.id > $3 ORDER BY p.id LIMIT $4`,
        [host.id, DERIVED_VERSION, after, batch],
      );
      if (rows.length === 0) break;
      after = String(rows.at(-1)!.id);
      const records = rows.map((row) => ({
        id: String(row.id),
        fingerprint: String(row.fingerprint),
        ...derivedOf(contentOfRow(row)),
      }));
      const result = await db.query(
        `UPDATE products p SET ${SET_DERIVED}
         FROM json_to_recordset($2::json) AS x (id text, fingerprint text, ${DERIVED_RECORD})
         WHERE p.host_id = $1 AND p.id = x.id AND p.fingerprint = x.fingerprint`,
        [host.id, JSON.stringify(records)],
      );
      rewritten += result.rowCount;
      if (rows.length < batch) break;
    }
  }
  return rewritten;
}
