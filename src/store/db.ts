// The one small port every store module talks to; adapters for pg and PGlite implement it.

export type Row = Record<string, unknown>;

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  query<R = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>>;
}

export interface QueryOptions {
  /**
   * Keep the statement prepared on the connection where the adapter can (PostgreSQL, straight to the server): parsed
   * once, and planned once its generic plan is as good. Only for statements whose best plan does not depend on the
   * values (a host's rows by its id, say): a search whose plan should follow its filters is planned each time.
   */
  prepared?: boolean;
  /**
   * Stop the statement once it has run this long: it then fails with StatementTimeoutError, and its connection serves
   * on. PostgreSQL stops it (statement_timeout, set for the statement alone). PGlite has no timer to stop a statement
   * with (it runs on the event loop): the embedded store runs every statement to its end.
   */
  timeoutMs?: number;
  /**
   * Give up waiting for the answer after this long (PostgreSQL), even when the server cannot say so (a stalled link):
   * the statement fails as unavailable, and its connection is discarded rather than reused. For a probe that must not
   * wait as long as a request's statement may.
   */
  giveUpAfterMs?: number;
}

/** One statement of a batch: SQL with $1… placeholders, and their values. */
export interface Statement {
  sql: string;
  params?: readonly unknown[];
}

/** The queries of one open transaction, plus bulk loading: what a sync writes with. */
export interface Transaction extends Queryable {
  /**
   * Bulk-loads rows with COPY: `copy` is "COPY table (columns)" (the adapter adds the source), `chunks` the
   * rows in COPY text format, produced lazily so that a large catalogue is never one string in memory.
   */
  copyFrom(copy: string, chunks: Iterable<string>): Promise<void>;
  /**
   * Runs statements one after another in one round trip, and resolves with their results in order. Each
   * statement sees what the ones before it did and, under READ COMMITTED, takes its own snapshot when it starts:
   * a statement after a row lock sees what the lock's previous holder committed. If one fails, the transaction is
   * aborted: none after it takes effect, and the batch rejects with that statement's error.
   */
  queries(statements: readonly Statement[], options?: BatchOptions): Promise<QueryResult<Row>[]>;
}

export interface BatchOptions {
  /** COMMIT in the same round trip, after the statements: the transaction is over once the batch resolves */
  commit?: boolean;
}

export interface Session extends Queryable {
  /** runs a script of several statements (migrations) */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'embedded';
  /**
   * BEGIN … COMMIT around fn; ROLLBACK if it throws. Run again from the start when PostgreSQL rolled it back to resolve
   * a conflict (retryingConflicts): fn must have no effect outside the transaction.
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /** fn on one dedicated connection, e.g. to hold a session-level advisory lock */
  session<T>(fn: (session: Session) => Promise<T>): Promise<T>;
  /** waits for connections in use to be given back, then closes */
  close(): Promise<void>;
  /** drops every connection at once: open transactions are rolled back by the server */
  abort(): Promise<void>;
  /** connections of the pool (postgres only): for the metrics */
  poolStats(): PoolStats | null;
}

export interface PoolStats {
  total: number;
  idle: number;
  /** callers waiting for a connection */
  waiting: number;
}

/** Thrown by adapters when the database cannot be reached; the HTTP layer answers 503. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/** A statement stopped once it had run the time its caller gave it (QueryOptions.timeoutMs); the database is well. */
export class StatementTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`the statement ran ${timeoutMs} ms and was stopped`, options);
    this.name = 'StatementTimeoutError';
  }
}

/**
 * The connection was lost after COMMIT was sent and before its answer came: the transaction may or may not have
 * committed. Only a look at what the database holds afterwards can tell (store/sync.ts settles it for a sync).
 */
export class CommitOutcomeUnknownError extends DatabaseUnavailableError {
  constructor(cause: unknown) {
    super('the connection was lost while the transaction was being committed', { cause });
    this.name = 'CommitOutcomeUnknownError';
  }
}

const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * Whether an error means "the database is not reachable right now" rather than "this query is wrong":
 * connection failures, SQLSTATE class 08 (connection exception), 57P01–57P03 (shutdown, cannot connect now),
 * 53300 (too many connections), 57014 (statement timeout: a stuck database), 57P05 (idle session timeout);
 * and the pg driver's own messages for a socket that died, a read that timed out and a pool being closed.
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_NODE_CODES.has(code)) return true;
    if (
      code.startsWith('08') ||
      code === '57P01' ||
      code === '57P02' ||
      code === '57P03' ||
      code === '53300' ||
      code === '57014' ||
      code === '57P05'
    )
      return true;
  }
  const message = String((error as { message?: unknown }).message ?? '');
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|Query read timeout|after calling end on the pool/i.test(
    message,
  );
}

/** SQLSTATEs of a transaction PostgreSQL rolled back to resolve a conflict: serialization_failure, deadlock_detected. */
const CONFLICT_CODES = new Set(['40001', '40P01']);

/** Whether the database rolled the work back because of a conflict with another transaction, which a retry resolves. */
export function isConflict(error: unknown): boolean {
  return typeof error === 'object' && error !== null && CONFLICT_CODES.has(String((error as { code?: unknown }).code));
}

/** Runs after the first, for a transaction rolled back by a conflict, before its error is answered. */
export const CONFLICT_RETRIES = 3;

/**
 * Runs `work` (a whole transaction, or one statement on its own) again when PostgreSQL rolled it back to resolve a
 * conflict, as its documentation advises for 40001 and 40P01: a few times, each after a random pause that grows, so
 * that the transactions that met do not meet again. `work` must be safe to run again: nothing it did took effect.
 */
export async function retryingConflicts<T>(work: () => Promise<T>, pause = conflictPause): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await work();
    } catch (error) {
      if (retry >= CONFLICT_RETRIES || !isConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause(retry)));
    }
  }
}

/** 5–20 ms before the first retry, doubling after each. */
function conflictPause(retry: number): number {
  return (5 + Math.random() * 15) * 2 ** retry;
}
