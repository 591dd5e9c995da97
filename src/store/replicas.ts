// Where the public directory reads: a streaming replica that is up and fresh enough, else the primary.
import { isUnavailable, type Database, type QueryOptions, type QueryResult, type Queryable } from './db.js';

/** A replica as the routing sees it, for the metrics and the log. */
export interface ReplicaState {
  /** 1, 2, …: its place in DATABASE_READ_URL (never the URL, which may hold a password) */
  name: string;
  /** reachable, a standby, and no staler than the limit at the last look */
  usable: boolean;
  /** seconds its data is known to be behind the primary's; null while unknown (down, or never checked) */
  lagSeconds: number | null;
}

/** What the metrics show of the routing: each replica's state, and how many reads each side served. */
export interface ReplicaReport {
  states(): ReplicaState[];
  served: { primary: number; replica: number };
}

interface Replica {
  name: string;
  db: Database;
  /** the primary's clock time (this process's, in ms) up to which everything committed is known to be on it */
  freshAsOf: number | null;
  /** why it is not used, once logged (so that a replica that stays down is logged once, not every second) */
  trouble: string | null;
}

/** A position in the write-ahead log, "16/B374D848", as a number of bytes. */
export function walPosition(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** Errors of a replica that the primary answers instead: unreachable, or a query cancelled by WAL replay. */
function isReplicaTrouble(error: unknown): boolean {
  return isUnavailable(error) || (error as { code?: unknown } | null)?.code === '40001';
}

export interface DirectoryReadsOptions {
  maxLagSeconds: number;
  /** how often the primary's WAL position and each replica's replay are looked at */
  checkIntervalMs: number;
  /** told once when a replica is set aside and once when it is used again */
  onChange?: (replica: string, usable: boolean, why: string) => void;
}

/**
 * Replica lag is measured against this process's own clock, never by comparing two servers' clocks: every check
 * notes the primary's current WAL position and when it was seen; a replica that has replayed up to a noted
 * position holds everything committed before that moment. Its lag is the age of the newest such moment, which
 * keeps growing while replay is stopped, whether the primary is busy or idle.
 */
export class DirectoryReads implements Queryable {
  readonly #primary: Database;
  readonly #replicas: Replica[];
  readonly #options: DirectoryReadsOptions;
  /** the primary's WAL position as seen at times (ms, performance.now), oldest first */
  #positions: { at: number; position: bigint }[] = [];
  #next = 0;
  /** queries answered, by where they ran */
  readonly served = { primary: 0, replica: 0 };
  #timer: NodeJS.Timeout | null = null;
  #checking: Promise<void> | null = null;

  constructor(primary: Database, replicas: { name: string; db: Database }[], options: DirectoryReadsOptions) {
    this.#primary = primary;
    this.#replicas = replicas.map(({ name, db }) => ({ name, db, freshAsOf: null, trouble: null }));
    this.#options = options;
  }

  /** Looks now and then every checkIntervalMs; until the first look, every read goes to the primary. */
  start(): Promise<void> {
    const tick = () => {
      this.#timer = setTimeout(() => void this.check().finally(tick), this.#options.checkIntervalMs);
      this.#timer.unref();
    };
    return this.check().finally(tick);
  }

  async stop(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#checking;
    await Promise.all(this.#replicas.map((replica) => replica.db.close()));
  }

  /** One look at the primary's position and every replica's replay. */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => (this.#checking = null));
    return this.#checking;
  }

  async #check(): Promise<void> {
    const at = performance.now();
    try {
      const { rows } = await this.#primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      this.#positions.push({ at, position: walPosition(rows[0]!.lsn) });
    } catch {
      // Without the primary's position no replica can be shown fresh: their lag grows until it answers again.
    }
    // Positions older than the limit can only prove a replica too stale; one of them is kept as the bound.
    const horizon = performance.now() - this.#options.maxLagSeconds * 1000;
    while (this.#positions.length > 1 && this.#positions[1]!.at < horizon) this.#positions.shift();
    await Promise.all(this.#replicas.map((replica) => this.#checkReplica(replica)));
  }

  async #checkReplica(replica: Replica): Promise<void> {
    try {
      const { rows } = await replica.db.query<{ standby: boolean; lsn: string | null }>(
        'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn',
      );
      const row = rows[0]!;
      if (!row.standby || row.lsn === null) {
        // A promoted standby, or a URL that names another primary: its lag cannot be known.
        replica.freshAsOf = null;
        return this.#setAside(replica, 'it is not a streaming standby');
      }
      const replayed = walPosition(row.lsn);
      const known = this.#positions.filter((seen) => seen.position <= replayed).at(-1);
      if (known && (replica.freshAsOf === null || known.at > replica.freshAsOf)) replica.freshAsOf = known.at;
      if (this.#isFresh(replica)) this.#setBack(replica);
      else this.#setAsideAsStale(replica);
    } catch (error) {
      replica.freshAsOf = null;
      this.#setAside(replica, `it is unreachable (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  #isFresh(replica: Replica): boolean {
    return replica.freshAsOf !== null && performance.now() - replica.freshAsOf <= this.#options.maxLagSeconds * 1000;
  }

  #setAsideAsStale(replica: Replica): void {
    this.#setAside(replica, `it lags more than ${this.#options.maxLagSeconds} s behind the primary`);
  }

  #setAside(replica: Replica, why: string): void {
    if (replica.trouble === null) this.#options.onChange?.(replica.name, false, why);
    replica.trouble = why;
  }

  #setBack(replica: Replica): void {
    if (replica.trouble !== null) this.#options.onChange?.(replica.name, true, 'it is up and fresh');
    replica.trouble = null;
  }

  /** The next usable replica, round robin; none when every one is down or too stale. */
  #pick(): Replica | null {
    for (let k = 0; k < this.#replicas.length; k++) {
      const replica = this.#replicas[(this.#next + k) % this.#replicas.length]!;
      if (replica.trouble !== null) continue;
      if (this.#isFresh(replica)) {
        this.#next = (this.#next + k + 1) % this.#replicas.length;
        return replica;
      }
      // Grown stale since the last look: set aside now, not at the next look.
      this.#setAsideAsStale(replica);
    }
    return null;
  }

  async query<R>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
    const replica = this.#pick();
    if (replica) {
      try {
        const result = await replica.db.query<R>(sql, params, options);
        this.served.replica += 1;
        return result;
      } catch (error) {
        if (!isReplicaTrouble(error)) throw error;
        // Stopped, cut off, or a query cancelled by replay: the primary answers, and the next look decides when
        // the replica is used again.
        replica.freshAsOf = null;
        this.#setAside(replica, `a query failed (${error instanceof Error ? error.message : String(error)})`);
      }
    }
    const result = await this.#primary.query<R>(sql, params, options);
    this.served.primary += 1;
    return result;
  }

  states(): ReplicaState[] {
    const now = performance.now();
    return this.#replicas.map((replica) => ({
      name: replica.name,
      usable: replica.trouble === null && this.#isFresh(replica),
      lagSeconds: replica.freshAsOf === null ? null : Math.max(0, (now - replica.freshAsOf) / 1000),
    }));
  }
}
