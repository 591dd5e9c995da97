// One sync as one transaction: lock the host, take the rate-limit slot, plan against what is stored, write.
import { newId } from '../catalog/ids.js';
import { planSync } from '../catalog/plan.js';
import type { NormalizedProduct, SyncPlan } from '../catalog/types.js';
import { KEY_OWNER, keyStatusStatement, toKeyOwner, touchApiKeyStatement, type KeyOwner } from './api-keys.js';
import type { Database, Queryable } from './db.js';
import { lockHostStatement } from './hosts.js';
import { completeIdempotencyKey, type StoredAnswer } from './idempotency.js';
import { applyPlan, existingProductsOf, existingProductsStatement } from './products.js';
import {
  insertSyncRunStatement,
  recordedRunOf,
  usageWithOneMoreRun,
  windowUsageOf,
  windowUsageStatement,
  windowUsageSubquery,
  type Window,
  type WindowUsage,
} from './sync-runs.js';

export interface SyncRequest {
  hostId: number;
  keyId: string;
  requestId: string;
  dryRun: boolean;
  products: NormalizedProduct[];
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
  | { kind: 'busy' };

/** SQLSTATE lock_not_available: lock_timeout expired */
const LOCK_NOT_AVAILABLE = '55P03';

export async function runSync(db: Database, request: SyncRequest): Promise<SyncOutcome> {
  try {
    return await applySync(db, request);
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return { kind: 'busy' };
    throw error;
  }
}

async function applySync(db: Database, request: SyncRequest): Promise<SyncOutcome> {
  return db.transaction(async (tx) => {
    const window: Window = { dryRun: request.dryRun, seconds: request.window.seconds, max: request.window.max };
    // One round trip opens the transaction, takes the host's row lock (concurrent syncs of one host queue there)
    // and reads everything the sync decides on. Each statement after the lock takes its snapshot once the lock
    // is held, so a sync that waited sees the previous holder's run in its window and its products as written.
    // lock_timeout is transaction-scoped (works behind PgBouncer in transaction mode): a sync stuck behind another
    // of the same host gives up instead of holding a connection for as long as the other one runs.
    const [, host, key, usageRows, products] = await tx.queries([
      { sql: `SELECT set_config('lock_timeout', $1, true)`, params: [`${request.lockTimeoutMs}ms`] },
      lockHostStatement(request.hostId),
      keyStatusStatement(request.keyId),
      windowUsageStatement(request.hostId, window),
      existingProductsStatement(request.hostId),
    ]);
    if (host!.rows[0]?.status !== 'active' || key!.rows[0]?.status !== 'active') return { kind: 'refused' };
    const usage = windowUsageOf(usageRows!.rows[0]!);
    if (usage.used >= request.window.max) return { kind: 'rate_limited', usage };

    const plan = planSync(existingProductsOf(products!.rows), request.products, () => newId('prd'));
    const syncId = newId('syn');
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
    // Without an answer to keep for an Idempotency-Key, the last round trip commits too.
    const idempotency = request.idempotency;
    const last = { commit: idempotency === undefined };
    const [recorded] = request.dryRun
      ? await tx.queries([run()], last)
      : (await applyPlan(tx, request.hostId, plan, () => [touchApiKeyStatement(request.keyId), run()], last)).slice(1);
    const applied: AppliedSync = { syncId, plan, ...recordedRunOf(recorded!.rows[0]!), usage: usageWithOneMoreRun(usage, window) };
    if (idempotency) {
      const answer = idempotency.answerOf(applied);
      const stored = await completeIdempotencyKey(tx, request.hostId, idempotency.key, { ...idempotency, answer });
      if (!stored) throw new IdempotencyClaimLostError();
    }
    return { kind: 'applied', ...applied };
  });
}

/** Who is syncing, read before the body is: the key's owner, how full its window is, and the category registry. */
export interface SyncCaller extends KeyOwner {
  usage: WindowUsage;
  categories: Set<string>;
}

export async function findSyncCaller(db: Queryable, digest: Buffer, window: Window): Promise<SyncCaller | null> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT owner.*, usage.used, usage.frees_in, array(SELECT slug FROM categories) AS categories
     FROM (${KEY_OWNER}) AS owner CROSS JOIN LATERAL ${windowUsageSubquery('owner.host_id', 2)} AS usage`,
    [digest, window.dryRun, window.seconds, window.max],
  );
  const row = rows[0];
  if (!row) return null;
  return { ...toKeyOwner(row), usage: windowUsageOf(row), categories: new Set(row.categories as string[]) };
}
