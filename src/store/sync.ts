// One sync as one transaction: lock the host, take the rate-limit slot, plan against what is stored, write.
import { newId } from '../catalog/ids.js';
import { planSync, planUnchanged } from '../catalog/plan.js';
import { receiptsChunks, type Receipt } from '../catalog/receipts.js';
import { isKnown, type CatalogueProduct, type KnownProduct, type SyncPlan } from '../catalog/types.js';
import { KEY_OWNER, keyStatusStatement, toKeyOwner, touchApiKeyStatement, type KeyOwner } from './api-keys.js';
import { CommitOutcomeUnknownError, DatabaseUnavailableError, type Database, type Queryable, type Statement, type Transaction } from './db.js';
import { lockHostStatement } from './hosts.js';
import { completeIdempotencyKey, type StoredAnswer } from './idempotency.js';
import { applyPlan, copyText, existingProductsOf, existingProductsStatement } from './products.js';
import {
  insertSyncRunStatement,
  recordedRunOf,
  usageWithOneMoreRun,
  windowUsageOf,
  windowUsageStatement,
  refusalsSubquery,
  windowUsageSubquery,
  type Window,
  type WindowUsage,
} from './sync-runs.js';

export interface SyncRequest {
  hostId: number;
  keyId: string;
  requestId: string;
  dryRun: boolean;
  products: CatalogueProduct[];
  /** how validation used the host's receipts (receipts.ts); absent when the catalogue keeps none */
  receipts?: ReceiptsUse;
  window: { seconds: number; max: number };
  startedAt: Date;
  /** how long to wait for a concurrent sync of the same host before giving up with 'busy' */
  lockTimeoutMs: number;
  /**
   * The request's Idempotency-Key claim: the answer, built from the applied run by `answerOf`, is stored in the
   * sync's own transaction, so that no crash or lost connection can separate the changes from their answer.
   */
  idempotency?: { key: string; claim: string; fingerprint: string; answerOf: (applied: AppliedSync) => StoredAnswer };
}

export interface AppliedSync {
  syncId: string;
  plan: SyncPlan;
  appliedAt: string;
  durationMs: number;
  usage: WindowUsage;
}

/** The request's Idempotency-Key was taken over by another request (its lease lapsed); nothing was applied. */
export class IdempotencyClaimLostError extends Error {
  constructor() {
    super('the Idempotency-Key claim lapsed while the sync ran');
    this.name = 'IdempotencyClaimLostError';
  }
}

export type SyncOutcome =
  | ({ kind: 'applied' } & AppliedSync)
  | { kind: 'rate_limited'; usage: WindowUsage }
  /** the host was suspended or the key revoked after authentication */
  | { kind: 'refused' }
  /** another sync of the host held its lock for longer than lockTimeoutMs */
  | { kind: 'busy' }
  /** the connection was lost during COMMIT, and the run was found committed afterwards: read it (findSyncRun) */
  | { kind: 'committed_unseen'; syncId: string }
  /** the connection was lost during COMMIT, and whether the run committed could not be found out in time */
  | { kind: 'outcome_unknown'; syncId: string };

/** SQLSTATE lock_not_available: lock_timeout expired */
const LOCK_NOT_AVAILABLE = '55P03';

export async function runSync(db: Database, request: SyncRequest): Promise<SyncOutcome> {
  // Known before anything is sent, so that a sync whose COMMIT lost its answer can be looked for afterwards.
  const syncId = newId('syn');
  const backend: { pid: number | null } = { pid: null };
  try {
    return await applySync(db, request, syncId, backend);
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return { kind: 'busy' };
    if (error instanceof CommitOutcomeUnknownError) return settleCommit(db, syncId, backend.pid, error);
    throw error;
  }
}

/** How long a sync whose COMMIT lost its answer is looked for before the answer says the outcome is unknown. */
export const COMMIT_SETTLE_MS = 10_000;

/**
 * After the connection was lost during COMMIT: the run is committed if another connection sees it; it is not if
 * the backend that ran the transaction is gone and the run is not there. Asked again until COMMIT_SETTLE_MS pass
 * (the database may be out of reach for a while); then the outcome is unknown. A sync certainly not committed is
 * the original failure (503, nothing changed).
 */
async function settleCommit(db: Database, syncId: string, pid: number | null, lost: CommitOutcomeUnknownError): Promise<SyncOutcome> {
  const deadline = Date.now() + COMMIT_SETTLE_MS;
  while (Date.now() < deadline) {
    const seen = await db
      .query<{ recorded: boolean; running: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM sync_runs WHERE id = $1) AS recorded,
                EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $2) AS running`,
        [syncId, pid ?? 0],
      )
      .then((result) => result.rows[0], () => undefined);
    if (seen?.recorded) return { kind: 'committed_unseen', syncId };
    // Its backend ended without the run: rolled back, for certain.
    if (seen !== undefined && pid !== null && !seen.running) {
      throw new DatabaseUnavailableError('the connection was lost before the transaction committed', { cause: lost });
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { kind: 'outcome_unknown', syncId };
}

async function applySync(db: Database, request: SyncRequest, syncId: string, backend: { pid: number | null }): Promise<SyncOutcome> {
  return db.transaction(async (tx) => {
    const window: Window = { dryRun: request.dryRun, seconds: request.window.seconds, max: request.window.max };
    // A catalogue that is, product for product, the one its host's receipts were written for needs nothing of what
    // the directory holds, if that is still what the receipts describe and they were not rewritten since read.
    const receipts = request.receipts;
    const known = receipts?.allKnown === true && receipts.writtenBy !== null ? knownProducts(request.products) : null;
    // One round trip opens the transaction, takes the host's row lock (concurrent syncs of one host queue there)
    // and reads everything the sync decides on. Each statement after the lock takes its snapshot once the lock
    // is held, so a sync that waited sees the previous holder's run in its window and its products as written.
    // lock_timeout is transaction-scoped (works behind PgBouncer in transaction mode): a sync stuck behind another
    // of the same host gives up instead of holding a connection for as long as the other one runs.
    // The backend's pid tells, should the connection be lost during COMMIT, when the transaction has surely ended.
    const [setup, host, key, usageRows, held] = await tx.queries([
      { sql: `SELECT set_config('lock_timeout', $1, true), pg_backend_pid() AS backend`, params: [`${request.lockTimeoutMs}ms`] },
      lockHostStatement(request.hostId),
      keyStatusStatement(request.keyId),
      windowUsageStatement(request.hostId, window),
      known ? receiptsCurrentStatement(request.hostId, receipts!.writtenBy!) : existingProductsStatement(request.hostId),
    ]);
    backend.pid = Number(setup!.rows[0]?.backend ?? 0) || null;
    if (host!.rows[0]?.status !== 'active' || key!.rows[0]?.status !== 'active') return { kind: 'refused' };
    const usage = windowUsageOf(usageRows!.rows[0]!);
    if (usage.used >= request.window.max) return { kind: 'rate_limited', usage };

    const current = known !== null && held!.rows[0]?.current === true;
    let plan: SyncPlan;
    if (current) {
      plan = planUnchanged(known);
    } else {
      const existing = known ? await queryRows(tx, existingProductsStatement(request.hostId)) : held!.rows;
      plan = planSync(existingProductsOf(existing), request.products, () => newId('prd'));
    }
    // Built once the writes before it are done, so that its duration counts them.
    const run = () =>
      insertSyncRunStatement({
        id: syncId,
        hostId: request.hostId,
        dryRun: request.dryRun,
        requestId: request.requestId,
        summary: plan.summary,
        plan,
        startedAt: request.startedAt,
        durationMs: Date.now() - request.startedAt.getTime(),
      });
    // A dry run changes nothing, receipts included; a catalogue answered from current receipts leaves them so.
    const step = current || request.dryRun ? null : receiptsStep(receipts);
    // New receipts are megabytes for a large catalogue: streamed by COPY once the products are written (the last
    // batch deletes the old ones), never held whole.
    const newReceipts = step?.kind === 'replace';
    const keepReceipts = step ? [receiptsStatement(request.hostId, step)] : [];
    // Without an answer to keep for an Idempotency-Key (or receipts to write), the last round trip commits too.
    const idempotency = request.idempotency;
    const last = { commit: idempotency === undefined && !newReceipts };
    const [recorded] = request.dryRun
      ? await tx.queries([run()], last)
      : (await applyPlan(tx, request.hostId, plan, () => [touchApiKeyStatement(request.keyId), run(), ...keepReceipts], last)).slice(1);
    if (newReceipts) await writeReceipts(tx, request.hostId, syncId, receipts!, plan);
    const applied: AppliedSync = { syncId, plan, ...recordedRunOf(recorded!.rows[0]!), usage: usageWithOneMoreRun(usage, window) };
    if (idempotency) {
      const answer = idempotency.answerOf(applied);
      const stored = await completeIdempotencyKey(tx, request.hostId, idempotency.key, { ...idempotency, answer });
      if (!stored) throw new IdempotencyClaimLostError();
    }
    return { kind: 'applied', ...applied };
  });
}

async function queryRows(tx: Transaction, statement: Statement): Promise<Record<string, unknown>[]> {
  return (await tx.query(statement.sql, statement.params)).rows;
}

/** The products as known from their receipts, or null if any one is not. */
function knownProducts(products: readonly CatalogueProduct[]): KnownProduct[] | null {
  for (const product of products) if (!isKnown(product)) return null;
  return products as KnownProduct[];
}

// ---------------------------------------------------------------------------------------------- receipts

/** How a sync's validation used its host's receipts (receipts.ts). */
export interface ReceiptsUse {
  /** the context the catalogue was validated under */
  context: string;
  /** each product's digest, in payload order */
  digests: string[];
  /** who wrote the receipts validation used (StoredReceipts.writtenBy), or null if none held under this context */
  writtenBy: string | null;
  /** every product had a receipt, and every receipt a product */
  allKnown: boolean;
}

/** A host's receipts as stored: the context they hold under, their text (receipts.ts), and the sync that wrote them. */
export interface StoredReceipts {
  context: string;
  text: string;
  writtenBy: string;
}

/** Whether the host's products are what the receipts written by `writtenBy` describe; no row if they were rewritten. */
function receiptsCurrentStatement(hostId: number, writtenBy: string): Statement {
  return { sql: 'SELECT current FROM sync_receipts WHERE host_id = $1 AND written_by = $2', params: [hostId, writtenBy] };
}

// What an applied sync does to its host's receipts, so that `current` is true only while the products are what
// they describe: a catalogue without receipts leaves them not current; the catalogue they were written for makes
// them current, unless they were rewritten since they were read; any other catalogue writes its own.

type ReceiptsStep = { kind: 'stale' } | { kind: 'confirm'; writtenBy: string } | { kind: 'replace' };

function receiptsStep(receipts: ReceiptsUse | undefined): ReceiptsStep {
  if (receipts === undefined) return { kind: 'stale' };
  if (receipts.allKnown && receipts.writtenBy !== null) return { kind: 'confirm', writtenBy: receipts.writtenBy };
  return { kind: 'replace' };
}

/** The step's statement in the last batch; 'replace' deletes the old receipts, writeReceipts writes the new. */
function receiptsStatement(hostId: number, step: ReceiptsStep): Statement {
  switch (step.kind) {
    case 'stale':
      return { sql: 'UPDATE sync_receipts SET current = false WHERE host_id = $1 AND current', params: [hostId] };
    case 'confirm':
      return { sql: 'UPDATE sync_receipts SET current = (written_by = $2) WHERE host_id = $1', params: [hostId, step.writtenBy] };
    case 'replace':
      return { sql: 'DELETE FROM sync_receipts WHERE host_id = $1', params: [hostId] };
  }
}

function* receiptsOf(digests: readonly string[], plan: SyncPlan): Generator<Receipt> {
  for (let k = 0; k < plan.products.length; k++) {
    const p = plan.products[k]!;
    yield { digest: digests[k]!, fingerprint: p.product.fingerprint, id: p.id, external_id: p.external_id };
  }
}

/** One row, its last column (the receipts) in pieces: COPY data need not break where rows do. */
async function writeReceipts(tx: Transaction, hostId: number, syncId: string, receipts: ReceiptsUse, plan: SyncPlan): Promise<void> {
  function* row(): Generator<string> {
    yield `${hostId}\t${copyText(receipts.context)}\t${copyText(syncId)}\tt\t`;
    for (const chunk of receiptsChunks(receiptsOf(receipts.digests, plan))) yield copyText(chunk);
    yield '\n';
  }
  await tx.copyFrom('COPY sync_receipts (host_id, context, written_by, current, receipts)', row());
}

/**
 * Who is syncing, read before the body is: the key's owner, how full its window is, the category registry and,
 * when asked for, the host's receipts (null when it has none).
 */
export interface SyncCaller extends KeyOwner {
  usage: WindowUsage;
  /** the host's refused requests in the window (at most the budget), and seconds until the oldest leaves it */
  refusals: WindowUsage;
  categories: Set<string>;
  receipts: StoredReceipts | null;
}

/** The receipts' columns, read only when the window has room: a request refused with 429 has no use for them. */
const RECEIPTS_COLUMNS = `, r.context AS receipts_context, r.written_by AS receipts_written_by,
       CASE WHEN usage.used < $4 THEN r.receipts END AS receipts`;

export async function findSyncCaller(
  db: Queryable,
  digest: Buffer,
  window: Window,
  options: { receipts: boolean; refusalBudget: number },
): Promise<SyncCaller | null> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT owner.*, usage.used, usage.frees_in, refusals.refused, refusals.refused_frees_in,
       array(SELECT slug FROM categories) AS categories
       ${options.receipts ? RECEIPTS_COLUMNS : ''}
     FROM (${KEY_OWNER}) AS owner CROSS JOIN LATERAL ${windowUsageSubquery('owner.host_id', 2)} AS usage
       CROSS JOIN LATERAL ${refusalsSubquery('owner.host_id', 5)} AS refusals
       ${options.receipts ? 'LEFT JOIN sync_receipts r ON r.host_id = owner.host_id' : ''}`,
    [digest, window.dryRun, window.seconds, window.max, window.seconds, options.refusalBudget],
  );
  const row = rows[0];
  if (!row) return null;
  const receipts =
    typeof row.receipts === 'string'
      ? { context: String(row.receipts_context), text: row.receipts, writtenBy: String(row.receipts_written_by) }
      : null;
  return {
    ...toKeyOwner(row),
    usage: windowUsageOf(row),
    refusals: { used: Number(row.refused), freesInSeconds: Math.max(0, Number(row.refused_frees_in)) },
    categories: new Set(row.categories as string[]),
    receipts,
  };
}
