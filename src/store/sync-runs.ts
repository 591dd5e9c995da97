// Sync runs: the record of every accepted sync, and the sliding-window rate limit derived from them.
import type { SyncSummary } from '../catalog/types.js';
import type { Queryable } from './db.js';
import { iso } from './rows.js';

export interface WindowUsage {
  /** applied runs (or dry runs) inside the window, at most `max` */
  used: number;
  /** whole seconds until the oldest of those leaves the window; 0 when none is in it */
  freesInSeconds: number;
}

/**
 * How full a host's window is, by the database's clock so that every server process agrees. Only the `max`
 * most recent runs matter: when the window is full, the oldest of them is the one whose expiry frees a slot.
 */
export async function windowUsage(
  db: Queryable,
  hostId: number,
  window: { dryRun: boolean; seconds: number; max: number },
): Promise<WindowUsage> {
  const { rows } = await db.query<{ used: number; frees_in: number }>(
    `WITH recent AS (
       SELECT applied_at FROM sync_runs
       WHERE host_id = $1 AND dry_run = $2 AND applied_at > clock_timestamp() - make_interval(secs => $3)
       ORDER BY applied_at DESC
       LIMIT $4
     )
     SELECT count(*)::int AS used,
            coalesce(ceil(extract(epoch FROM min(applied_at) + make_interval(secs => $3) - clock_timestamp())), 0)::int AS frees_in
     FROM recent`,
    [hostId, window.dryRun, window.seconds, window.max],
  );
  const row = rows[0]!;
  return { used: Number(row.used), freesInSeconds: Math.max(0, Number(row.frees_in)) };
}

export interface NewSyncRun {
  id: string;
  hostId: number;
  dryRun: boolean;
  requestId: string;
  summary: SyncSummary;
  startedAt: Date;
  durationMs: number;
}

export async function insertSyncRun(tx: Queryable, run: NewSyncRun): Promise<{ appliedAt: string; durationMs: number }> {
  const { rows } = await tx.query<{ applied_at: unknown; duration_ms: number }>(
    `INSERT INTO sync_runs (host_id, id, dry_run, request_id, received, created, updated, unchanged, reactivated,
       deactivated, started_at, applied_at, duration_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, clock_timestamp(), $12)
     RETURNING applied_at, duration_ms`,
    [
      run.hostId,
      run.id,
      run.dryRun,
      run.requestId,
      run.summary.received,
      run.summary.created,
      run.summary.updated,
      run.summary.unchanged,
      run.summary.reactivated,
      run.summary.deactivated,
      run.startedAt.toISOString(),
      run.durationMs,
    ],
  );
  const row = rows[0]!;
  return { appliedAt: iso(row.applied_at), durationMs: Number(row.duration_ms) };
}

export interface SyncRunRecord {
  sync_id: string;
  dry_run: boolean;
  applied_at: string;
  duration_ms: number;
  summary: SyncSummary;
}

function toRecord(row: Record<string, unknown>): SyncRunRecord {
  return {
    sync_id: String(row.id),
    dry_run: Boolean(row.dry_run),
    applied_at: iso(row.applied_at),
    duration_ms: Number(row.duration_ms),
    summary: {
      received: Number(row.received),
      created: Number(row.created),
      updated: Number(row.updated),
      unchanged: Number(row.unchanged),
      reactivated: Number(row.reactivated),
      deactivated: Number(row.deactivated),
    },
  };
}

/** One page of a host's runs, newest first; beforeId is the previous page's last id. */
export async function listSyncRuns(
  db: Queryable,
  hostId: number,
  page: { limit: number; beforeId: string | null },
): Promise<{ runs: SyncRunRecord[]; lastId: string | null; more: boolean }> {
  const { rows } = await db.query(
    `SELECT id, dry_run, applied_at, duration_ms, received, created, updated, unchanged, reactivated, deactivated
     FROM sync_runs
     WHERE host_id = $1 AND ($2::text IS NULL OR id < $2::text)
     ORDER BY id DESC
     LIMIT $3`,
    [hostId, page.beforeId, page.limit + 1],
  );
  const more = rows.length > page.limit;
  const runs = rows.slice(0, page.limit).map(toRecord);
  return { runs, lastId: runs.at(-1)?.sync_id ?? null, more };
}
