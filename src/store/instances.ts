// The server processes alive on this database, each kept fresh by its own heartbeat: an Idempotency-Key claim of a
// process whose heartbeat stopped is free again (idempotency.ts) within INSTANCE_DEAD_AFTER_SECONDS.
import type { Queryable } from './db.js';

/** How often a process says it is alive. */
const INSTANCE_HEARTBEAT_MS = 2_000;
/** How long after its last heartbeat a process is taken for dead: several heartbeats, so one slow query is no death. */
export const INSTANCE_DEAD_AFTER_SECONDS = 10;
/** Rows of processes gone longer than this are deleted by the heartbeats of the living. */
const FORGET_AFTER_SECONDS = 3_600;

export async function touchInstance(db: Queryable, id: string): Promise<void> {
  await db.query(
    `WITH forgotten AS (
       DELETE FROM server_instances WHERE seen_at < clock_timestamp() - make_interval(secs => $2) AND id <> $1)
     INSERT INTO server_instances (id, started_at, seen_at, reads_action_pieces) VALUES ($1, clock_timestamp(), clock_timestamp(), true)
     ON CONFLICT (id) DO UPDATE SET seen_at = EXCLUDED.seen_at`,
    [id, FORGET_AFTER_SECONDS],
  );
}

/**
 * Whether a process of a version that reads a run's actions only from its row (before migration 054) is alive: a
 * large run then keeps them there (store/sync.ts).
 */
export async function rowOnlyReaderAlive(db: Queryable): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT EXISTS (SELECT 1 FROM server_instances
                    WHERE NOT reads_action_pieces AND seen_at > clock_timestamp() - make_interval(secs => $1)) AS alive`,
    [INSTANCE_DEAD_AFTER_SECONDS],
  );
  return rows[0]?.alive === true;
}

/** A process that stops cleanly leaves at once: its claims are released by then anyway. */
export async function forgetInstance(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM server_instances WHERE id = $1', [id]);
}

/**
 * Keeps this process's row fresh until `stop` is called. A heartbeat that fails (the database is out of reach) is
 * only reported: the next one tries again.
 */
export function keepInstanceAlive(db: Queryable, id: string, onError: (error: unknown) => void): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    touchInstance(db, id)
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, INSTANCE_HEARTBEAT_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
