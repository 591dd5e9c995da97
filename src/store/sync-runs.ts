// Sync runs: the record of every accepted sync, and the sliding-window rate limit derived from them.
import type { ProductAction, SyncPlan, SyncSummary } from '../catalog/types.js';
import type { Queryable, Statement } from './db.js';
import { iso } from './rows.js';

export interface WindowUsage {
  /** applied runs (or dry runs) inside the window, at most `max` */
  used: number;
  /** whole seconds until the oldest of those leaves the window; 0 when none is in it */
  freesInSeconds: number;
}

/**
 * How full a host's window is, as a subquery with columns `used` and `frees_in`: `host` is an SQL expression for
 * the host's id, and the window's dry-run flag, seconds and max are the parameters $p, $p+1 and $p+2. By the
 * database's clock, so that every server process agrees. Only the `max` most recent runs matter: when the window
 * is full, the oldest of them is the one whose expiry frees a slot.
 */
export function windowUsageSubquery(host: string, p: number): string {
  return `(WITH recent AS (
       SELECT applied_at FROM sync_runs
       WHERE host_id = ${host} AND dry_run = $${p} AND applied_at > clock_timestamp() - make_interval(secs => $${p + 1})
       ORDER BY applied_at DESC
       LIMIT $${p + 2}
     )
     SELECT count(*)::int AS used,
            coalesce(ceil(extract(epoch FROM min(applied_at) + make_interval(secs => $${p + 1}) - clock_timestamp())), 0)::int AS frees_in
     FROM recent)`;
}

/**
 * How many of a host's requests were refused (413, 415, 422) within the last `seconds`, as a subquery with columns
 * `refused` and `refused_frees_in`; the seconds and the budget are the parameters $p and $p+1.
 */
export function refusalsSubquery(host: string, p: number): string {
  return `(WITH recent AS (
       SELECT refused_at FROM sync_refusals
       WHERE host_id = ${host} AND refused_at > clock_timestamp() - make_interval(secs => $${p})
       ORDER BY refused_at DESC
       LIMIT $${p + 1}
     )
     SELECT count(*)::int AS refused,
            coalesce(ceil(extract(epoch FROM min(refused_at) + make_interval(secs => $${p}) - clock_timestamp())), 0)::int AS refused_frees_in
     FROM recent)`;
}

/** Records one refused request of a host, and forgets its refusals older than `seconds`. */
export async function recordRefusal(db: Queryable, hostId: number, seconds: number): Promise<void> {
  await db.query(
    `WITH forgotten AS (
       DELETE FROM sync_refusals WHERE host_id = $1 AND refused_at <= clock_timestamp() - make_interval(secs => $2))
     INSERT INTO sync_refusals (host_id, refused_at) VALUES ($1, clock_timestamp())`,
    [hostId, seconds],
  );
}

export interface Window {
  dryRun: boolean;
  seconds: number;
  max: number;
}

/** The statement reading how full a host's window is; its row is read by windowUsageOf. */
export function windowUsageStatement(hostId: number, window: Window): Statement {
  return { sql: `SELECT * FROM ${windowUsageSubquery('$1', 2)} AS usage`, params: [hostId, window.dryRun, window.seconds, window.max] };
}

export function windowUsageOf(row: Record<string, unknown>): WindowUsage {
  return { used: Number(row.used), freesInSeconds: Math.max(0, Number(row.frees_in)) };
}

/**
 * The usage once one more run is in the window, without asking the database again: the run was just recorded
 * under the host's lock, so it is the newest, and the oldest only changes if the window was empty.
 */
export function usageWithOneMoreRun(before: WindowUsage, window: Window): WindowUsage {
  return before.used === 0
    ? { used: 1, freesInSeconds: window.seconds }
    : { used: Math.min(window.max, before.used + 1), freesInSeconds: before.freesInSeconds };
}

export interface NewSyncRun {
  id: string;
  hostId: number;
  dryRun: boolean;
  requestId: string;
  summary: SyncSummary;
  /** what the run did to each product, kept for the run's detail page */
  plan: Pick<SyncPlan, 'products' | 'deactivated'>;
  startedAt: Date;
  durationMs: number;
}

const ACTION_LETTER: Record<ProductAction | 'deactivated', string> = {
  created: 'c',
  updated: 'u',
  unchanged: 'n',
  reactivated: 'r',
  deactivated: 'd',
};
const LETTER_ACTION: Record<string, ProductAction | 'deactivated'> = Object.fromEntries(
  Object.entries(ACTION_LETTER).map(([action, letter]) => [letter, action as ProductAction | 'deactivated']),
);

/**
 * A run's per-product actions as one text: a line per product, `<letter>\t<id>\t<external_id>`, payload order,
 * then the deactivated ones. About 40 bytes a product, built in one pass; external ids hold no control
 * characters, so tabs and newlines cannot occur inside a field.
 */
export function encodeRunActions(plan: Pick<SyncPlan, 'products' | 'deactivated'>): string {
  const lines: string[] = new Array(plan.products.length + plan.deactivated.length);
  let i = 0;
  for (const p of plan.products) lines[i++] = `${ACTION_LETTER[p.action]}\t${p.id}\t${p.external_id}`;
  for (const d of plan.deactivated) lines[i++] = `d\t${d.id}\t${d.external_id}`;
  return lines.join('\n');
}

export interface RunActions {
  products: { external_id: string; id: string; action: ProductAction }[];
  deactivated: { external_id: string; id: string }[];
}

export function decodeRunActions(text: string | null): RunActions {
  const actions: RunActions = { products: [], deactivated: [] };
  if (!text) return actions;
  for (const line of text.split('\n')) {
    const first = line.indexOf('\t');
    const second = line.indexOf('\t', first + 1);
    const action = LETTER_ACTION[line.slice(0, first)];
    const id = line.slice(first + 1, second);
    const external_id = line.slice(second + 1);
    if (action === 'deactivated') actions.deactivated.push({ external_id, id });
    else if (action) actions.products.push({ external_id, id, action });
  }
  return actions;
}

/** The statement recording a run; its row is read by recordedRunOf. */
export function insertSyncRunStatement(run: NewSyncRun): Statement {
  return {
    sql: `INSERT INTO sync_runs (host_id, id, dry_run, request_id, received, created, updated, unchanged, reactivated,
       deactivated, started_at, applied_at, duration_ms, actions)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, clock_timestamp(), $12, $13)
     RETURNING applied_at, duration_ms`,
    params: [
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
      encodeRunActions(run.plan),
    ],
  };
}

export function recordedRunOf(row: Record<string, unknown>): { appliedAt: string; durationMs: number } {
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

/** One run of a host with its per-product actions; null when the host has no run with that id. */
export async function findSyncRun(
  db: Queryable,
  hostId: number,
  syncId: string,
): Promise<(SyncRunRecord & RunActions) | null> {
  const { rows } = await db.query(
    `SELECT id, dry_run, applied_at, duration_ms, received, created, updated, unchanged, reactivated, deactivated, actions
     FROM sync_runs
     WHERE host_id = $1 AND id = $2`,
    [hostId, syncId],
  );
  const row = rows[0];
  if (!row) return null;
  return { ...toRecord(row), ...decodeRunActions((row.actions as string | null) ?? null) };
}
