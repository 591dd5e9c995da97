// What the directory's feeds read: price drops, sell-outs and restocks matching a search (its Atom feed), the change
// feed of every applied sync (for aggregators), and a validator of the directory's state for the streamed exports.
import type { Queryable } from './db.js';
import { conditionsOf } from './directory/conditions.js';
import { productColumns, toListedProduct, type ListedProduct } from './directory/listed-product.js';
import type { ProductSearch } from './directory/search.js';
import { iso } from './rows.js';
import { decodeRunActions, RUN_ACTIONS_COLUMN, RUN_ACTIONS_JOIN } from './sync-runs.js';

export interface PriceDrop {
  product: ListedProduct;
  /** when the sync that lowered it was applied, and its id */
  at: string;
  sync_id: string;
  previous_monthly_price: number;
  monthly_price: number;
}

/** The newest price drops (a lower monthly price in the same currency) of products matching the search. */
export async function recentPriceDrops(
  db: Queryable,
  search: Omit<ProductSearch, 'sort' | 'order' | 'after'>,
): Promise<PriceDrop[]> {
  const filters = await conditionsOf(db, search);
  if (filters === null) return [];
  const { rows } = await db.query(
    `SELECT ${productColumns(filters.since)}, e.replaced_at, e.sync_id, e.monthly_price::float8 AS was, e.new_monthly_price::float8 AS became
     FROM price_history e
       JOIN products p ON p.host_id = e.host_id AND p.id = e.product_id
       JOIN hosts h ON h.id = p.host_id
     WHERE e.new_monthly_price < e.monthly_price AND e.new_currency = e.currency AND ${filters.where.join(' AND ')}
     ORDER BY e.replaced_at DESC, e.sync_id DESC
     LIMIT ${filters.param(search.limit)}`,
    filters.params,
  );
  return rows.map((row) => ({
    product: toListedProduct(row, search.freshness),
    at: iso(row.replaced_at),
    sync_id: String(row.sync_id),
    previous_monthly_price: Number(row.was),
    monthly_price: Number(row.became),
  }));
}

export interface StockChange {
  product: ListedProduct;
  event: StockEvent;
  /** when the sync that made it was applied, and its id */
  at: string;
  sync_id: string;
}

/** A plan selling out (its stock became 0), or coming back (its stock left 0). */
export type StockEvent = 'sold_out' | 'restocked';

/** The newest sell-outs and restocks of products matching the search (store/price-history.ts writes them). */
export async function recentStockChanges(
  db: Queryable,
  search: Omit<ProductSearch, 'sort' | 'order' | 'after'>,
): Promise<StockChange[]> {
  const filters = await conditionsOf(db, search);
  if (filters === null) return [];
  const { rows } = await db.query(
    `SELECT ${productColumns(filters.since)}, e.changed_at, e.sync_id, e.event
     FROM stock_changes e
       JOIN products p ON p.host_id = e.host_id AND p.id = e.product_id
       JOIN hosts h ON h.id = p.host_id
     WHERE ${filters.where.join(' AND ')}
     ORDER BY e.changed_at DESC, e.sync_id DESC, e.product_id
     LIMIT ${filters.param(search.limit)}`,
    filters.params,
  );
  return rows.map((row) => ({
    product: toListedProduct(row, search.freshness),
    event: row.event as StockEvent,
    at: iso(row.changed_at),
    sync_id: String(row.sync_id),
  }));
}

/** Where a reader of the change feed stands: after `index` changes of the run `runId` of transaction `xid`. */
export interface ChangePosition {
  xid: string;
  runId: string;
  index: number;
}

export type ChangeAction = 'created' | 'updated' | 'reactivated' | 'deactivated' | StockEvent;

export interface DirectoryChange {
  product_id: string;
  action: ChangeAction;
  host: string;
  sync_id: string;
  at: string;
}

/** Runs read per query while a page of changes fills: a run may hold 50 000 changes, or one. */
const RUNS_PER_READ = 20;

/**
 * Up to `limit` changes after `after` (from the first when null), in the order of the transactions that made them,
 * and the position after the last one (where the next read starts, `after` itself when there is nothing new). Only
 * runs of transactions older than every transaction still running are read, so that a run committed later always
 * comes after a position already handed out; unchanged products and suspended hosts' runs are left out. A run's
 * sell-outs and restocks follow its other changes, in product id order.
 */
export async function changesAfter(
  db: Queryable,
  after: ChangePosition | null,
  limit: number,
): Promise<{ changes: DirectoryChange[]; next: ChangePosition | null; more: boolean }> {
  const changes: DirectoryChange[] = [];
  let position = after;
  for (;;) {
    // The runs first, then a row per piece of their actions.
    const { rows } = await db.query(
      `SELECT runs.xid, runs.id, runs.host_id::text AS host_id, runs.applied_at, runs.slug, ${RUN_ACTIONS_COLUMN}
       FROM (SELECT r.change_xid, r.change_xid::text AS xid, r.host_id, r.id, r.applied_at, r.actions, h.slug
             FROM sync_runs r JOIN hosts h ON h.id = r.host_id
             WHERE NOT r.dry_run AND r.created + r.updated + r.reactivated + r.deactivated > 0
               AND r.change_xid < pg_snapshot_xmin(pg_current_snapshot())
               AND ($1::text IS NULL OR (r.change_xid, r.id) >= ($1::text::xid8, $2::text))
               AND h.status = 'active'
             ORDER BY r.change_xid, r.id
             LIMIT ${RUNS_PER_READ}) runs
         ${RUN_ACTIONS_JOIN}
       ORDER BY runs.change_xid, runs.id, pieces.piece`,
      [position?.xid ?? null, position?.runId ?? ''],
    );
    const runs = piecesByRun(rows);
    const stockEvents = await stockEventsOf(db, runs);
    for (const row of runs) {
      const runId = String(row.id);
      const xid = String(row.xid);
      const actions = decodeRunActions(row.pieces);
      const entries = [
        ...actions.products
          .filter((p) => p.action !== 'unchanged')
          .map((p) => ({ id: p.id, action: p.action as ChangeAction })),
        ...actions.deactivated.map((d) => ({ id: d.id, action: 'deactivated' as const })),
        ...(stockEvents.get(runId) ?? []),
      ];
      const start = position && position.xid === xid && position.runId === runId ? position.index : 0;
      for (let k = start; k < entries.length; k++) {
        if (changes.length === limit) return { changes, next: position, more: true };
        const entry = entries[k]!;
        changes.push({
          product_id: entry.id,
          action: entry.action,
          host: String(row.slug),
          sync_id: runId,
          at: iso(row.applied_at),
        });
        position = { xid, runId, index: k + 1 };
      }
      position = { xid, runId, index: Math.max(start, entries.length) };
    }
    if (runs.length < RUNS_PER_READ) return { changes, next: position, more: false };
  }
}

/** The sell-outs and restocks of each of the runs, by run id, in product id order. */
async function stockEventsOf(
  db: Queryable,
  runs: readonly Record<string, unknown>[],
): Promise<Map<string, { id: string; action: StockEvent }[]>> {
  const byRun = new Map<string, { id: string; action: StockEvent }[]>();
  if (runs.length === 0) return byRun;
  const { rows } = await db.query<{ sync_id: string; product_id: string; event: StockEvent }>(
    `SELECT e.sync_id, e.product_id, e.event
     FROM unnest($1::bigint[], $2::text[]) AS r(host_id, sync_id)
       JOIN stock_changes e ON e.host_id = r.host_id AND e.sync_id = r.sync_id
     ORDER BY e.sync_id, e.product_id`,
    [runs.map((run) => String(run.host_id)), runs.map((run) => String(run.id))],
  );
  for (const row of rows) {
    const events = byRun.get(row.sync_id) ?? [];
    events.push({ id: row.product_id, action: row.event });
    byRun.set(row.sync_id, events);
  }
  return byRun;
}

/** Rows of runs, one per piece of their actions (in order), as one row per run with its pieces. */
function piecesByRun(
  rows: readonly Record<string, unknown>[],
): (Record<string, unknown> & { pieces: (string | null)[] })[] {
  const runs: (Record<string, unknown> & { pieces: (string | null)[] })[] = [];
  for (const row of rows) {
    const last = runs.at(-1);
    const piece = row.actions as string | null;
    if (last && last.id === row.id && last.xid === row.xid) last.pieces.push(piece);
    else runs.push({ ...row, pieces: [piece] });
  }
  return runs;
}

/**
 * Changes with every listed product they name, as it is now (null when it is no longer listed). `freshness` marks them.
 */
export async function listedProductsById(
  db: Queryable,
  ids: readonly string[],
  freshness: ListedProductFreshness,
): Promise<Map<string, ListedProduct>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT ${productColumns('$2::text')}
     FROM products p JOIN hosts h ON h.id = p.host_id
     WHERE p.id = ANY($1::text[]) AND p.status = 'active' AND h.status = 'active'`,
    [ids, freshness.dropsSince],
  );
  return new Map(rows.map((row) => [String(row.id), toListedProduct(row, freshness)]));
}

type ListedProductFreshness = ProductSearch['freshness'] & { dropsSince: string };

/**
 * A validator of everything the public listing shows: any sync, suspension or activation changes it, and so does a
 * host turning stale (the count of fresh hosts). What an export of a search holds follows from it.
 */
export async function directoryVersion(db: Queryable, staleBefore: Date): Promise<string> {
  const { rows } = await db.query(
    `SELECT max(confirmed_at)::text AS confirmed, max(updated_at)::text AS updated, count(*) AS hosts,
            count(*) FILTER (WHERE status = 'active' AND confirmed_at >= $1::timestamptz) AS fresh,
            (SELECT count(*) FROM categories) AS categories
     FROM hosts`,
    [staleBefore.toISOString()],
  );
  const row = rows[0]!;
  // The day too: cards mark price drops of the last days, counted from today.
  return [row.confirmed, row.updated, row.hosts, row.fresh, row.categories, new Date().toISOString().slice(0, 10)]
    .map(String)
    .join('|');
}
