// A sync's SQL. Who is syncing is read in one query before the body (sync-caller.ts); then one transaction takes the
// host, reads what the sync decides on, writes the plan and records the run, in as few round trips as the work allows
// (sync-transaction.ts, sending its statements through sync-batch.ts). Every batch of statements, COMMIT riding with
// the last one, COPY and the statements themselves stay in these modules; what they answer is named. This one runs
// the transaction, and turns the database's troubles into values.
import { CommitOutcomeUnknownError, DatabaseUnavailableError, isUnavailable, type Database } from './db.js';
import { OpenSync, type SyncIdentity, type SyncTransaction } from './sync-transaction.js';

/** How a sync's transaction ended, when not with the value of its function. */
export type TransactionTrouble =
  /** another sync of the host held its lock for longer than lockTimeoutMs; nothing was changed */
  | { kind: 'busy' }
  /** the database could not be reached before COMMIT was sent, or the transaction certainly did not commit */
  | { kind: 'unavailable'; error: unknown }
  /** the connection was lost during COMMIT, and the run was found committed afterwards */
  | { kind: 'committed_unseen' }
  /** the connection was lost during COMMIT, and whether the run committed could not be found out in time */
  | { kind: 'outcome_unknown' };

/** SQLSTATE lock_not_available: lock_timeout expired */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * How long a sync waits for another sync of the same host to finish before it is answered 429: the other one will
 * most likely take the window, and a wait holds a sync slot and a connection meanwhile.
 */
export const LOCK_TIMEOUT_MS = 10_000;

/** Runs `fn` in the transaction of one sync; the troubles of the database come back as values. */
export async function inSyncTransaction<T>(
  db: Database,
  sync: SyncIdentity,
  fn: (tx: SyncTransaction) => Promise<T>,
): Promise<{ kind: 'done'; value: T } | TransactionTrouble> {
  // The transaction's backend tells, should the connection be lost during COMMIT, when it has surely ended.
  const backend: { pid: number | null } = { pid: null };
  try {
    const value = await db.transaction((tx) => fn(new OpenSync(tx, sync, backend)));
    return { kind: 'done', value };
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) return { kind: 'busy' };
    if (error instanceof CommitOutcomeUnknownError) return settleCommit(db, sync.syncId, backend.pid, error);
    if (isUnavailable(error)) return { kind: 'unavailable', error };
    throw error;
  }
}

/** How long a sync whose COMMIT lost its answer is looked for before the answer says the outcome is unknown. */
const COMMIT_SETTLE_MS = 10_000;

/**
 * After the connection was lost during COMMIT: the run is committed if another connection sees it; it is not if
 * the backend that ran the transaction is gone and the run is not there. Asked again until COMMIT_SETTLE_MS pass
 * (the database may be out of reach for a while); then the outcome is unknown.
 */
async function settleCommit(
  db: Database,
  syncId: string,
  pid: number | null,
  lost: CommitOutcomeUnknownError,
): Promise<TransactionTrouble> {
  const deadline = Date.now() + COMMIT_SETTLE_MS;
  while (Date.now() < deadline) {
    const seen = await db
      .query<{ recorded: boolean; running: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM sync_runs WHERE id = $1) AS recorded,
                EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $2) AS running`,
        [syncId, pid ?? 0],
      )
      .then(
        (result) => result.rows[0],
        () => undefined,
      );
    if (seen?.recorded) return { kind: 'committed_unseen' };
    // Its backend ended without the run: rolled back, for certain.
    if (seen !== undefined && pid !== null && !seen.running) {
      return {
        kind: 'unavailable',
        error: new DatabaseUnavailableError('the connection was lost before the transaction committed', {
          cause: lost,
        }),
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { kind: 'outcome_unknown' };
}
