// Who is syncing, read in one query before the body: the key's host, its window and refusals, the categories and
// the host's receipts.

import { KEY_OWNERS, toKeyOwner, type KeyOwner } from './api-keys.js';
import type { Queryable, Row } from './db.js';

export interface WindowUsage {
  /** applied runs (or dry runs, or refused requests) inside the window, at most its `max` */
  used: number;
  /** whole seconds until the oldest of those leaves the window; 0 when none is in it */
  freesInSeconds: number;
}

/** The window a request is counted in: `max` applied syncs (or dry runs) per `seconds`. */
export interface WindowQuery {
  dryRun: boolean;
  seconds: number;
  max: number;
}

/**
 * A host's receipts as stored (sync/receipts.ts): the context they hold under, their text in its pieces (in order,
 * each of whole lines), and the sync that wrote them.
 */
export interface StoredReceipts {
  context: string;
  pieces: string[];
  writtenBy: string;
}

/** Who is syncing, read before the body: the key's owner, how full its windows are, the category registry, its receipts. */
export interface SyncCaller extends KeyOwner {
  usage: WindowUsage;
  /** the host's refused requests in the window (at most the budget), and seconds until the oldest leaves it */
  refusals: WindowUsage;
  categories: Set<string>;
  /** null when it has none, when they were not asked for, or when the window is full (they would not be used) */
  receipts: StoredReceipts | null;
}

// The window's subqueries read the request's values from `w`, a row of named parameters, and the host's id from the
// SQL expression `host`. By the database's clock, so that every server process agrees. Only the `max` most recent
// rows matter: when the window is full, the oldest of them is the one whose expiry frees a slot.
export const windowUsage = (host: string) => `(WITH recent AS (
       SELECT applied_at FROM sync_runs
       WHERE host_id = ${host} AND dry_run = w.dry_run AND applied_at > clock_timestamp() - make_interval(secs => w.seconds)
       ORDER BY applied_at DESC
       LIMIT w.max)
     SELECT count(*)::int AS used,
            coalesce(ceil(extract(epoch FROM min(applied_at) + make_interval(secs => w.seconds) - clock_timestamp())), 0)::int AS frees_in
     FROM recent)`;

const refusals = (host: string) => `(WITH recent AS (
       SELECT refused_at FROM sync_refusals
       WHERE host_id = ${host} AND refused_at > clock_timestamp() - make_interval(secs => w.seconds)
       ORDER BY refused_at DESC
       LIMIT w.refusal_budget)
     SELECT count(*)::int AS refused,
            coalesce(ceil(extract(epoch FROM min(refused_at) + make_interval(secs => w.seconds) - clock_timestamp())), 0)::int AS refused_frees_in
     FROM recent)`;

export function usageOf(used: unknown, freesIn: unknown): WindowUsage {
  return { used: Number(used), freesInSeconds: Math.max(0, Number(freesIn)) };
}

/**
 * The receipts' columns: a row per piece, read in the same statement as the rest so that the pieces are the ones its
 * writer left; read only when the window has room (a request refused with 429 has no use for them).
 */
const RECEIPTS_COLUMNS = `, r.context AS receipts_context, r.written_by AS receipts_written_by, pieces.text AS receipts_piece`;
const RECEIPTS_JOIN = `LEFT JOIN sync_receipts r ON r.host_id = held.host_id
       LEFT JOIN LATERAL (SELECT p.piece, p.text FROM sync_receipt_pieces p WHERE p.host_id = r.host_id AND usage.used < w.max) AS pieces ON true
     ORDER BY pieces.piece`;

export async function findSyncCaller(
  db: Queryable,
  digest: Buffer,
  window: WindowQuery,
  options: { receipts: boolean; refusalBudget: number },
): Promise<SyncCaller | null> {
  const { rows } = await db.query(
    `SELECT held.*, usage.used, usage.frees_in, refusals.refused, refusals.refused_frees_in,
       array(SELECT slug FROM categories) AS categories
       ${options.receipts ? RECEIPTS_COLUMNS : ''}
     FROM (VALUES ($1::bytea, $2::boolean, $3::int, $4::int, $5::int)) AS w (digest, dry_run, seconds, max, refusal_budget)
       JOIN ${KEY_OWNERS} AS held ON held.digest = w.digest
       CROSS JOIN LATERAL ${windowUsage('held.host_id')} AS usage
       CROSS JOIN LATERAL ${refusals('held.host_id')} AS refusals
       ${options.receipts ? RECEIPTS_JOIN : ''}`,
    [digest, window.dryRun, window.seconds, window.max, options.refusalBudget],
    // Planned once per connection: its plan does not depend on whose key it is, and planning it was the largest part
    // of what PostgreSQL spent on a small sync's statements.
    { prepared: true },
  );
  const row = rows[0];
  if (!row) return null;
  return {
    ...toKeyOwner(row),
    usage: usageOf(row.used, row.frees_in),
    refusals: usageOf(row.refused, row.refused_frees_in),
    categories: new Set(row.categories as string[]),
    receipts: storedReceipts(rows),
  };
}

/** The receipts of the caller's rows (one per piece), or null when it has none or they were not read. */
function storedReceipts(rows: readonly Row[]): StoredReceipts | null {
  const pieces: string[] = [];
  for (const row of rows) if (typeof row.receipts_piece === 'string') pieces.push(row.receipts_piece);
  if (pieces.length === 0) return null;
  return { context: String(rows[0]!.receipts_context), pieces, writtenBy: String(rows[0]!.receipts_written_by) };
}
