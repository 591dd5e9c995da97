// Sync runs: the record of every accepted sync (written by store/sync.ts), read back as the history; and the
// record of refused requests, which have a budget of their own.
import type { ProductAction, SyncPlan, SyncSummary } from '../catalog/types.js';
import type { Database, Queryable } from './db.js';
import { iso } from './rows.js';

/**
 * Records one refused request of a host, unless its budget of `budget` refusals per `seconds` is spent; forgets its
 * refusals older than that. One writer per host at a time (a transaction-level advisory lock), so the record never
 * holds more than the budget whatever the concurrency. True when recorded.
 */
export async function recordRefusal(
  db: Database,
  hostId: number,
  window: { seconds: number; budget: number },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [, , recorded] = await tx.queries(
      [
        { sql: `SELECT pg_advisory_xact_lock(hashtextextended('sync_refusals', $1))`, params: [hostId] },
        {
          sql: 'DELETE FROM sync_refusals WHERE host_id = $1 AND refused_at <= clock_timestamp() - make_interval(secs => $2)',
          params: [hostId, window.seconds],
        },
        {
          sql: `INSERT INTO sync_refusals (host_id, refused_at)
                SELECT $1, clock_timestamp() WHERE (SELECT count(*) FROM sync_refusals WHERE host_id = $1) < $2`,
          params: [hostId, window.budget],
        },
      ],
      { commit: true },
    );
    return recorded?.rowCount === 1;
  });
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

/** Lines per piece of a run's actions: a run of up to this many products keeps them in its own row. */
export const RUN_ACTIONS_PER_PIECE = 1024;

/**
 * A run's per-product actions as text: a line per product, `<letter>\t<id>\t<external_id>`, payload order, then the
 * deactivated ones, in pieces of at most `perPiece` lines (about 45 bytes a line), so that a large run's are never one
 * string. External ids hold no control characters, so tabs and newlines cannot occur inside a field.
 */
export function* runActionPieces(
  plan: Pick<SyncPlan, 'products' | 'deactivated'>,
  perPiece = RUN_ACTIONS_PER_PIECE,
): Generator<string> {
  let lines: string[] = [];
  const flush = () => {
    const piece = lines.join('\n');
    lines = [];
    return piece;
  };
  for (const p of plan.products) {
    lines.push(`${ACTION_LETTER[p.action]}\t${p.id}\t${p.external_id}`);
    if (lines.length === perPiece) yield flush();
  }
  for (const d of plan.deactivated) {
    lines.push(`d\t${d.id}\t${d.external_id}`);
    if (lines.length === perPiece) yield flush();
  }
  if (lines.length > 0) yield flush();
}

/** Whether the run's actions fit the one piece its own row keeps (store/sync.ts writes the others as pieces). */
export function actionsFitTheRun(plan: Pick<SyncPlan, 'products' | 'deactivated'>): boolean {
  return plan.products.length + plan.deactivated.length <= RUN_ACTIONS_PER_PIECE;
}

export interface RunActions {
  products: { external_id: string; id: string; action: ProductAction }[];
  deactivated: { external_id: string; id: string }[];
}

/** The actions of a run from its pieces in order (a run recorded before actions were kept has none). */
export function decodeRunActions(pieces: Iterable<string | null>): RunActions {
  const actions: RunActions = { products: [], deactivated: [] };
  for (const text of pieces) {
    if (!text) continue;
    for (const line of text.split('\n')) {
      const first = line.indexOf('\t');
      const second = line.indexOf('\t', first + 1);
      const action = LETTER_ACTION[line.slice(0, first)];
      const id = line.slice(first + 1, second);
      const external_id = line.slice(second + 1);
      if (action === 'deactivated') actions.deactivated.push({ external_id, id });
      else if (action) actions.products.push({ external_id, id, action });
    }
  }
  return actions;
}

/**
 * The columns of a run's actions in a query of runs aliased `runs` (with `host_id` and `id`): a row per piece, in
 * order after `ORDER BY …, pieces.piece`; a run whose actions fit its row has one, with them.
 */
export const RUN_ACTIONS_COLUMN = `coalesce(pieces.text, runs.actions) AS actions`;
export const RUN_ACTIONS_JOIN = `LEFT JOIN sync_run_action_pieces pieces ON pieces.host_id = runs.host_id AND pieces.sync_id = runs.id`;

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
    `SELECT runs.id, dry_run, applied_at, duration_ms, received, created, updated, unchanged, reactivated, deactivated, ${RUN_ACTIONS_COLUMN}
     FROM sync_runs runs ${RUN_ACTIONS_JOIN}
     WHERE runs.host_id = $1 AND runs.id = $2
     ORDER BY pieces.piece`,
    [hostId, syncId],
  );
  const row = rows[0];
  if (!row) return null;
  return { ...toRecord(row), ...decodeRunActions(rows.map((r) => r.actions as string | null)) };
}

/** A refused sync as the API answered it: its problem's code, detail and every validation error. */
export interface RefusalReport {
  refused_at: string;
  dry_run: boolean;
  status: number;
  code: string;
  detail: string;
  errors: { pointer?: string; code?: string; detail?: string }[];
}

/** Refusal reports kept per host: the latest ones, enough to find when and why syncs failed. */
export const REFUSAL_REPORTS_KEPT = 20;

/** Keeps a refused sync's answer for the provider's dashboard, and forgets all but the latest few of the host. */
export async function recordRefusalReport(
  db: Database,
  hostId: number,
  report: Omit<RefusalReport, 'refused_at'>,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.queries(
      [
        {
          sql: `INSERT INTO sync_refusal_reports (host_id, dry_run, status, code, detail, errors)
                VALUES ($1, $2, $3, $4, $5, $6::jsonb)`,
          params: [hostId, report.dry_run, report.status, report.code, report.detail, JSON.stringify(report.errors)],
        },
        {
          sql: `DELETE FROM sync_refusal_reports WHERE host_id = $1 AND id <= (
                  SELECT id FROM sync_refusal_reports WHERE host_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
          params: [hostId, REFUSAL_REPORTS_KEPT],
        },
      ],
      { commit: true },
    );
  });
}

/** The host's kept refusal reports, newest first. */
export async function listRefusalReports(db: Queryable, hostId: number): Promise<RefusalReport[]> {
  const { rows } = await db.query(
    `SELECT refused_at, dry_run, status, code, detail, errors FROM sync_refusal_reports
     WHERE host_id = $1 ORDER BY id DESC`,
    [hostId],
  );
  return rows.map((row) => ({
    refused_at: iso(row.refused_at),
    dry_run: Boolean(row.dry_run),
    status: Number(row.status),
    code: String(row.code),
    detail: String(row.detail),
    errors: (typeof row.errors === 'string' ? JSON.parse(row.errors) : row.errors) as RefusalReport['errors'],
  }));
}
