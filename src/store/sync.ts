// One sync as one transaction: lock the host, take the rate-limit slot, plan against what is stored, write.
import { newId } from '../catalog/ids.js';
import { planSync } from '../catalog/plan.js';
import type { NormalizedProduct, SyncPlan } from '../catalog/types.js';
import { touchApiKey } from './api-keys.js';
import type { Database } from './db.js';
import { lockHost } from './hosts.js';
import { applyPlan, loadExistingProducts } from './products.js';
import { insertSyncRun, windowUsage, type WindowUsage } from './sync-runs.js';

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
}

export type SyncOutcome =
  | { kind: 'applied'; syncId: string; plan: SyncPlan; appliedAt: string; durationMs: number; usage: WindowUsage }
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
    // Transaction-scoped (works behind PgBouncer in transaction mode): a sync stuck behind another sync of the
    // same host gives up instead of holding a connection for as long as the other one runs.
    await tx.query(`SELECT set_config('lock_timeout', $1, true)`, [`${request.lockTimeoutMs}ms`]);
    // Concurrent syncs of one host queue here; the window is checked only once the lock is held.
    const host = await lockHost(tx, request.hostId);
    if (!host || host.status !== 'active') return { kind: 'refused' };
    const { rows: keys } = await tx.query<{ status: string }>('SELECT status FROM api_keys WHERE id = $1', [request.keyId]);
    if (keys[0]?.status !== 'active') return { kind: 'refused' };

    const window = { dryRun: request.dryRun, seconds: request.window.seconds, max: request.window.max };
    const usage = await windowUsage(tx, request.hostId, window);
    if (usage.used >= request.window.max) return { kind: 'rate_limited', usage };

    const existing = await loadExistingProducts(tx, request.hostId);
    const plan = planSync(existing, request.products, () => newId('prd'));
    if (!request.dryRun) {
      await applyPlan(tx, request.hostId, plan);
      await touchApiKey(tx, request.keyId);
    }
    const syncId = newId('syn');
    const recorded = await insertSyncRun(tx, {
      id: syncId,
      hostId: request.hostId,
      dryRun: request.dryRun,
      requestId: request.requestId,
      summary: plan.summary,
      startedAt: request.startedAt,
      durationMs: Date.now() - request.startedAt.getTime(),
    });
    const after = await windowUsage(tx, request.hostId, window);
    return { kind: 'applied', syncId, plan, ...recorded, usage: after };
  });
}
