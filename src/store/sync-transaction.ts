// A sync's transaction: the host's lock and what the sync decides on, then the plan written and the run recorded,
// in as few round trips as the work allows.

import type { ProductWrites } from '../catalog/plan.js';
import type { RateTable } from '../catalog/rates.js';
import type { ExistingProduct, SyncPlan, SyncSummary } from '../catalog/types.js';
import type { Row, Statement, Transaction } from './db.js';
import { keptAnswerStatements, type ClaimRef, type KeptAnswer } from './idempotency.js';
import { rowOnlyReaderAlive } from './instances.js';
import { changedWithHistory } from './price-history.js';
import { CONTENT_COLUMNS, CONTENT_RECORD, copyContent, copyText, SET_CONTENT } from './product-columns.js';
import {
  copyDerivedPrices,
  CURRENT_RATES,
  DERIVED_PRICE_COLUMNS,
  DERIVED_PRICE_RECORD,
  RATES_LOCK_FOR_SYNC,
  rateTableOf,
  SET_DERIVED_PRICES,
} from './rates.js';
import { iso } from './rows.js';
import { WRITE_BY_STATEMENT_MAX, batch, copyChunks, inPieces, recordsJson } from './sync-batch.js';
import { type WindowQuery, type WindowUsage, usageOf, windowUsage } from './sync-caller.js';
import { actionsFitTheRun, runActionPieces } from './sync-runs.js';

/** What the sync's transaction found once it held its host's lock. */
export interface HeldHost {
  /** the key and its host are still active: either may have changed while the body was read */
  active: boolean;
  usage: WindowUsage;
  /** the request's Idempotency-Key claim (if any) is still its own, and locked until the transaction ends */
  holdsClaim: boolean;
  /** the receipts written by `receiptsWrittenBy` still describe the host's products exactly (false if not asked) */
  receiptsCurrent: boolean;
}

/** What a sync does to its host's receipts (sync/receipts.ts), so that `current` is true only while they hold. */
export type ReceiptsChange =
  /** the products changed without receipts: the stored ones no longer describe them */
  | { kind: 'stale' }
  /** the catalogue they were written for was synced again: current, unless others were written since */
  | { kind: 'confirm'; writtenBy: string }
  /** new receipts, in their text format, in pieces */
  | { kind: 'replace'; context: string; text: Iterable<string> };

/** The run's record, as the sync knows it before it is written. */
export interface NewRun {
  dryRun: boolean;
  requestId: string;
  summary: SyncSummary;
  plan: Pick<SyncPlan, 'products' | 'deactivated'>;
  startedAt: Date;
}

export interface RecordedRun {
  /** by the database's clock */
  appliedAt: string;
  durationMs: number;
}

export interface SyncTransaction {
  /**
   * Takes the host's row lock (concurrent syncs of one host queue here) and reads what the sync decides on: whether
   * the key and host are still active, the window, the claim and, with `receiptsWrittenBy`, whether those receipts
   * still hold (else the host's products, for `products()`).
   */
  takeHost(request: {
    window: WindowQuery;
    claim: ClaimRef | null;
    receiptsWrittenBy: string | null;
  }): Promise<HeldHost>;
  /** The host's products, both statuses, by external_id. */
  products(): Promise<Map<string, ExistingProduct>>;
  /**
   * Writes the products, marks the key used (not for a dry run), records the run and changes the receipts. With
   * `answerFollows`, the transaction stays open for keepAnswer; else it is committed here.
   */
  write(
    writes: ProductWrites,
    run: NewRun,
    then: { receipts: ReceiptsChange | null; answerFollows: boolean },
  ): Promise<RecordedRun>;
  /** Stores the answer for the claim's key (the claim is locked since takeHost), keeps the host's caps, and commits. */
  keepAnswer(kept: KeptAnswer): Promise<void>;
}

/** Who runs a sync's transaction: the sync's id, its host, the key it came with, and how long it waits for the host. */
export interface SyncIdentity {
  /** known before anything is sent, so that a sync whose COMMIT lost its answer can be looked for afterwards */
  syncId: string;
  hostId: number;
  keyId: string;
  lockTimeoutMs: number;
}

/** A changed (updated or reactivated) product, from the record `x`: active, with its new content. */
const OVERWRITE = `status = 'active', ${SET_CONTENT}, ${SET_DERIVED_PRICES}, fingerprint = x.fingerprint, updated_at = now(), deactivated_at = NULL`;

/** What the planner needs of each product the host holds. */
const HELD_PRODUCTS = 'SELECT external_id, id, status, fingerprint FROM products WHERE host_id = $1';

export class OpenSync implements SyncTransaction {
  #productsRead: Row[] | null = null;
  /** the exchange rates, read under RATES_LOCK_FOR_SYNC: what the products' EUR prices are derived with */
  #rates: RateTable = new Map();
  readonly hostId: number;

  constructor(
    private readonly tx: Transaction,
    private readonly sync: SyncIdentity,
    private readonly backend: { pid: number | null },
  ) {
    this.hostId = sync.hostId;
  }

  async takeHost(request: {
    window: WindowQuery;
    claim: ClaimRef | null;
    receiptsWrittenBy: string | null;
  }): Promise<HeldHost> {
    const { hostId } = this;
    const { window, claim, receiptsWrittenBy } = request;
    // One round trip opens the transaction, takes the lock and reads. Each statement after the lock takes its snapshot
    // once the lock is held, so a sync that waited sees the previous holder's run in its window and its products as
    // written. lock_timeout is transaction-scoped (it works behind PgBouncer in transaction mode).
    const found = await batch(this.tx, {
      setup: {
        sql: `SELECT set_config('lock_timeout', $1, true), pg_backend_pid() AS backend`,
        params: [`${this.sync.lockTimeoutMs}ms`],
      },
      host: { sql: `SELECT status <> 'suspended' AS syncs FROM hosts WHERE id = $1 FOR UPDATE`, params: [hostId] },
      key: { sql: 'SELECT status FROM api_keys WHERE id = $1', params: [this.sync.keyId] },
      usage: {
        sql: `SELECT usage.* FROM (VALUES ($1::bigint, $2::boolean, $3::int, $4::int)) AS w (host_id, dry_run, seconds, max)
                CROSS JOIN LATERAL ${windowUsage('w.host_id')} AS usage`,
        params: [hostId, window.dryRun, window.seconds, window.max],
      },
      // Locked until the transaction ends: no other request can take the key over while its answer is on its way.
      claim: claim
        ? {
            sql: `SELECT 1 FROM idempotency_keys WHERE host_id = $1 AND key = $2 AND claim = $3 AND status = 'running' FOR UPDATE`,
            params: [hostId, claim.key, claim.token],
          }
        : undefined,
      // Receipts that a sync which held the lock in between rewrote are not the ones that were read: no row.
      receipts: receiptsWrittenBy
        ? {
            sql: 'SELECT current FROM sync_receipts WHERE host_id = $1 AND written_by = $2',
            params: [hostId, receiptsWrittenBy],
          }
        : undefined,
      products: receiptsWrittenBy ? undefined : { sql: HELD_PRODUCTS, params: [hostId] },
      // A dry run writes no product: it neither needs the rates nor holds up an import.
      ratesLock: window.dryRun ? undefined : { sql: RATES_LOCK_FOR_SYNC, params: [] },
      rates: window.dryRun ? undefined : { sql: CURRENT_RATES, params: [] },
    });
    if (found.rates) this.#rates = rateTableOf(found.rates.rows);
    this.backend.pid = Number(found.setup.rows[0]?.backend ?? 0) || null;
    this.#productsRead = found.products?.rows ?? null;
    const usage = found.usage.rows[0]!;
    return {
      // A pending host (signed up, not listed yet) syncs, so that its catalogue is ready when it is listed.
      active: found.host.rows[0]?.syncs === true && found.key.rows[0]?.status === 'active',
      usage: usageOf(usage.used, usage.frees_in),
      holdsClaim: claim === null || found.claim!.rows.length === 1,
      receiptsCurrent: found.receipts?.rows[0]?.current === true,
    };
  }

  async products(): Promise<Map<string, ExistingProduct>> {
    const rows = (this.#productsRead ??= (await this.tx.query(HELD_PRODUCTS, [this.hostId])).rows);
    const existing = new Map<string, ExistingProduct>();
    for (const row of rows as unknown as readonly ExistingProduct[]) existing.set(row.external_id, row);
    return existing;
  }

  async write(
    writes: ProductWrites,
    run: NewRun,
    then: { receipts: ReceiptsChange | null; answerFollows: boolean },
  ): Promise<RecordedRun> {
    const { tx, hostId } = this;
    const { created, changed, deactivated } = writes;
    const rates = this.#rates;
    // Many products go first, by COPY; up to WRITE_BY_STATEMENT_MAX ride in the last round trip.
    if (created.length > WRITE_BY_STATEMENT_MAX) {
      const prefix = hostId + '\t';
      // 'now' is read by PostgreSQL as the transaction's start time, the same instant as now() in the statements.
      await tx.copyFrom(
        `COPY products (host_id, external_id, id, status, ${CONTENT_COLUMNS}, ${DERIVED_PRICE_COLUMNS}, fingerprint, created_at, updated_at)`,
        copyChunks(
          created,
          (c) =>
            `${prefix}${copyText(c.external_id)}\t${c.id}\tactive\t${copyContent(c.content)}\t${copyDerivedPrices(c.content, rates)}\t${c.content.fingerprint}\tnow\tnow`,
        ),
      );
    }
    if (changed.length > WRITE_BY_STATEMENT_MAX) {
      await tx.query(
        `CREATE TEMPORARY TABLE product_changes ON COMMIT DROP AS
           SELECT external_id, ${CONTENT_COLUMNS}, ${DERIVED_PRICE_COLUMNS}, fingerprint FROM products WITH NO DATA`,
      );
      await tx.copyFrom(
        `COPY product_changes (external_id, ${CONTENT_COLUMNS}, ${DERIVED_PRICE_COLUMNS}, fingerprint)`,
        copyChunks(
          changed,
          (c) =>
            `${copyText(c.external_id)}\t${copyContent(c.content)}\t${copyDerivedPrices(c.content, rates)}\t${c.content.fingerprint}`,
        ),
      );
      await tx.query(this.#changedFrom('product_changes x', '$2'), [hostId, this.sync.syncId]);
    }
    const receipts = then.receipts;
    // New receipts are megabytes for a large catalogue, and so are a large run's actions: streamed by COPY once the
    // products are written and the run recorded (the last round trip deletes the old receipts' pieces), a row per
    // piece, never held whole, here or by PostgreSQL. Without them or an answer to keep, it commits too.
    const replacing = receipts?.kind === 'replace';
    // Past one piece, unless a process that reads them only there is alive (a deploy of this version under way).
    const actionsInRow = actionsFitTheRun(run.plan) || (await rowOnlyReaderAlive(tx));
    const last = await batch(
      tx,
      {
        created:
          created.length > 0 && created.length <= WRITE_BY_STATEMENT_MAX
            ? {
                sql: `INSERT INTO products (host_id, external_id, id, status, ${CONTENT_COLUMNS}, ${DERIVED_PRICE_COLUMNS}, fingerprint, created_at, updated_at)
                      SELECT $1, x.external_id, x.id, 'active', ${CONTENT_COLUMNS}, ${DERIVED_PRICE_COLUMNS}, x.fingerprint, now(), now()
                      FROM json_to_recordset($2::json) AS x (external_id text, id text, ${CONTENT_RECORD}, ${DERIVED_PRICE_RECORD}, fingerprint text)`,
                params: [hostId, recordsJson(created, rates)],
              }
            : undefined,
        changed:
          changed.length > 0 && changed.length <= WRITE_BY_STATEMENT_MAX
            ? {
                sql: this.#changedFrom(
                  `json_to_recordset($2::json) AS x (external_id text, ${CONTENT_RECORD}, ${DERIVED_PRICE_RECORD}, fingerprint text)`,
                  '$3',
                ),
                params: [hostId, recordsJson(changed, rates), this.sync.syncId],
              }
            : undefined,
        // A join, not "IN (SELECT …)": for a host the statistics do not know yet, the planner estimates one active
        // row and picks a semi join that re-reads the whole list per product (50 000 × 50 000: minutes).
        deactivated:
          deactivated.length > 0
            ? {
                sql: `UPDATE products p SET status = 'inactive', deactivated_at = now(), updated_at = now()
                      FROM json_array_elements_text($2::json) AS gone (external_id)
                      WHERE p.host_id = $1 AND p.status = 'active' AND p.external_id = gone.external_id`,
                params: [hostId, JSON.stringify(deactivated)],
              }
            : undefined,
        touch: run.dryRun
          ? undefined
          : { sql: 'UPDATE api_keys SET last_used_at = now() WHERE id = $1', params: [this.sync.keyId] },
        // Built once the writes before it are done, so that its duration counts them (and the pieces copied after
        // it, below).
        run: this.#runStatement(run, actionsInRow),
        receipts: receipts ? receiptsStatement(hostId, this.sync.syncId, receipts) : undefined,
      },
      { commit: !then.answerFollows && !replacing && actionsInRow },
    );
    if (!actionsInRow)
      await tx.copyFrom(
        'COPY sync_run_action_pieces (host_id, sync_id, piece, text)',
        inPieces(`${hostId}\t${this.sync.syncId}`, runActionPieces(run.plan)),
      );
    if (replacing)
      await tx.copyFrom('COPY sync_receipt_pieces (host_id, piece, text)', inPieces(String(hostId), receipts.text));
    if (actionsInRow && !replacing) return recordedOf(last.run.rows[0]!);
    // Those pieces are part of the sync's work (seconds for 50 000 products): the run's duration counts them too. The
    // statement carries the COMMIT the batch above left for later.
    const timed = await batch(
      tx,
      {
        run: {
          sql: 'UPDATE sync_runs SET duration_ms = $3 WHERE host_id = $1 AND id = $2 RETURNING applied_at, duration_ms',
          params: [hostId, this.sync.syncId, Date.now() - run.startedAt.getTime()],
        },
      },
      { commit: !then.answerFollows },
    );
    return recordedOf(timed.run.rows[0]!);
  }

  async keepAnswer(kept: KeptAnswer): Promise<void> {
    // The claim's row has been locked since takeHost, so the answer is stored: COMMIT rides along.
    await this.tx.queries(keptAnswerStatements(this.hostId, kept), { commit: true });
  }

  /**
   * Writes the changed products from `source` (rows aliased x: external_id, content, fingerprint) and keeps, in the
   * same statement, the prices each replaces (store/price-history.ts); `sync` is the parameter of the sync's id.
   */
  #changedFrom(source: string, sync: string): string {
    return changedWithHistory(`SELECT * FROM ${source}`, OVERWRITE, '$1', sync);
  }

  #runStatement(run: NewRun, actionsInRow: boolean): Statement {
    const { summary } = run;
    return {
      // An applied run is also the host's latest confirmation by its billing system (the host's row is locked).
      sql: `WITH run AS (
              INSERT INTO sync_runs (host_id, id, dry_run, request_id, received, created, updated, unchanged, reactivated,
                deactivated, started_at, applied_at, duration_ms, actions)
              VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, clock_timestamp(), $12, $13)
              RETURNING applied_at, duration_ms, dry_run),
            confirmed AS (UPDATE hosts SET confirmed_at = run.applied_at FROM run WHERE hosts.id = $1 AND NOT run.dry_run)
            SELECT applied_at, duration_ms FROM run`,
      params: [
        this.hostId,
        this.sync.syncId,
        run.dryRun,
        run.requestId,
        summary.received,
        summary.created,
        summary.updated,
        summary.unchanged,
        summary.reactivated,
        summary.deactivated,
        run.startedAt.toISOString(),
        Date.now() - run.startedAt.getTime(),
        // Else NULL: write() copies them in pieces once this row is in.
        actionsInRow ? [...runActionPieces(run.plan, Infinity)].join('') : null,
      ],
    };
  }
}

function recordedOf(row: Record<string, unknown>): RecordedRun {
  return { appliedAt: iso(row.applied_at), durationMs: Number(row.duration_ms) };
}

/**
 * The change's statement in the last round trip; 'replace' deletes the old pieces and writes what the new ones hold
 * under (by `syncId`), and COPY then writes the pieces.
 */
function receiptsStatement(hostId: number, syncId: string, change: ReceiptsChange): Statement {
  switch (change.kind) {
    case 'stale':
      return { sql: 'UPDATE sync_receipts SET current = false WHERE host_id = $1 AND current', params: [hostId] };
    case 'confirm':
      return {
        sql: 'UPDATE sync_receipts SET current = (written_by = $2) WHERE host_id = $1',
        params: [hostId, change.writtenBy],
      };
    case 'replace':
      return {
        sql: `WITH gone AS (DELETE FROM sync_receipt_pieces WHERE host_id = $1)
              INSERT INTO sync_receipts (host_id, context, written_by, current) VALUES ($1, $2, $3, true)
              ON CONFLICT (host_id) DO UPDATE SET context = excluded.context, written_by = excluded.written_by, current = true, receipts = NULL`,
        params: [hostId, change.context, syncId],
      };
  }
}
