// The pg adapter: a connection pool on a PostgreSQL server, shared safely by any number of processes.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import {
  CommitOutcomeUnknownError,
  DatabaseUnavailableError,
  isUnavailable,
  retryingConflicts,
  StatementTimeoutError,
  type BatchOptions,
  type Database,
  type PoolStats,
  type QueryOptions,
  type QueryResult,
  type Row,
  type Session,
  type Statement,
  type Transaction,
} from './db.js';
import {
  preparedStatements,
  runPrepared,
  simpleQuery,
  simpleQueryText,
  type PreparedStatements,
} from './pg-statements.js';

export interface PostgresOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  applicationName?: string;
  /** how long to wait for a new connection, or for a free one of the pool (default 5 s) */
  connectTimeoutMs?: number;
}

// numeric stays a string (exact decimal); int8 counts fit in a double for every count hostdir keeps.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/**
 * timestamptz as UTC prints it ("2026-11-24 20:51:07.123456+00") read straight into the API's ISO form, to the
 * millisecond as a Date would hold it: a page reads three instants a product, and parsing each into a Date to print
 * it again cost more than the rest of its row. Another zone's offset, a year past 9999 or infinity goes through
 * pg's own parser (a Date), as before; store/rows.ts takes either.
 */
const UTC_TIMESTAMPTZ = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;
const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text');
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, (value: string) => {
  const utc = UTC_TIMESTAMPTZ.exec(value);
  if (utc === null) return parseTimestamptz(value);
  return `${utc[1]}T${utc[2]}.${((utc[3] ?? '') + '000').slice(0, 3)}Z`;
});

/**
 * What the adapter knows of one of its connections: its prepared statements, when it reaches PostgreSQL itself rather
 * than a transaction pooler (PgBouncer), learnt once when it connects, before its first use: the backend that answers
 * is the one whose id the connection was given (a pooler gives ids of its own). Through a pooler the next transaction
 * may run on a server connection that never saw a statement, so nothing is kept prepared there (null).
 */
interface ConnectionFacts {
  prepared: PreparedStatements | null;
}

/** A connection of the pool, checked out: a session, and the batches of a transaction on it. */
interface PooledSession extends Session, Transaction {
  client: pg.PoolClient;
  inTransaction(statements: readonly Statement[]): Promise<QueryResult<Row>[]>;
}

/**
 * One statement stopped by PostgreSQL once it has run `timeoutMs`, in the same round trip as the setting: `SET LOCAL`
 * and the statement sent together run in one implicit transaction, so the setting ends with it. The connection goes
 * back to the pool as it came, and through a pooler in transaction mode (which passes no session setting on and hands
 * each transaction any server connection) the setting travels with its statement, in one simple query (a statement
 * kept prepared run there with EXECUTE, after its PREPARE the first time). Stopped, the statement
 * fails with StatementTimeoutError and the connection is kept: the statement, not the database, took long.
 */
async function withinTime<R>(
  session: PooledSession,
  prepared: PreparedStatements | null,
  statement: Statement,
  options: QueryOptions & { timeoutMs: number },
): Promise<QueryResult<R>> {
  const limit = { sql: `SET LOCAL statement_timeout = ${Math.max(1, Math.ceil(options.timeoutMs))}` };
  try {
    const results =
      options.prepared && prepared
        ? await runPrepared(session.client, prepared, [limit, statement])
        : await session.queries([limit, statement]);
    return results[1] as QueryResult<R>;
  } catch (error) {
    if (sqlStateOf(error) === QUERY_CANCELED) throw new StatementTimeoutError(options.timeoutMs, { cause: error });
    throw wrap(error);
  }
}

/** SQLSTATE of a statement cancelled, by its statement_timeout among others. */
const QUERY_CANCELED = '57014';

/** The SQLSTATE of a server's error, as pg gives it or wrapped as DatabaseUnavailableError. */
function sqlStateOf(error: unknown): unknown {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: unknown };
  return code ?? (cause as { code?: unknown } | undefined)?.code;
}

function wrap(error: unknown): unknown {
  if (isUnavailable(error) && !(error instanceof DatabaseUnavailableError)) {
    return new DatabaseUnavailableError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  return error;
}

export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;
  /** connections checked out by session(), so that abort() can drop them */
  readonly #inUse = new Set<pg.PoolClient>();
  readonly #facts = new WeakMap<pg.PoolClient, ConnectionFacts>();

  constructor(options: PostgresOptions) {
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize,
      // Bounds the wait for a free connection as well as for a new one: a flood waits at most this long, then 503.
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      idleTimeoutMillis: 30_000,
      // Detects a peer that vanished without a FIN (cable cut, failover) instead of waiting forever.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      statement_timeout: options.statementTimeoutMs,
      // statement_timeout is enforced by the server; when the server itself is out of reach, this client-side
      // bound ends the wait, and the connection is discarded (session() releases it as broken).
      query_timeout: options.statementTimeoutMs + 5_000,
      idle_in_transaction_session_timeout: Math.max(options.statementTimeoutMs * 2, 60_000),
      application_name: options.applicationName ?? 'hostdir',
      // Asked of each new connection before it is first handed out; one that cannot answer is not handed out.
      verify: (client, done) => {
        // pg-pool listens for a connection's errors while it is idle, and the session that checks it out from then
        // on: not during this check. A connection lost now emits an error that would otherwise end the process; the
        // check's statement fails with it too, and the pool then drops the connection.
        const lost = () => {};
        client.on('error', lost);
        const checked = (error?: Error) => {
          client.off('error', lost);
          done(error);
        };
        client.query('SELECT pg_backend_pid() AS pid').then(
          (result) => {
            const direct = Number(result.rows[0]?.pid) === (client as unknown as { processID?: number }).processID;
            this.#facts.set(client, { prepared: direct ? preparedStatements() : null });
            checked();
          },
          (error: Error) => checked(error),
        );
      },
    });
    // An idle client losing its connection must not crash the process; the next checkout reconnects.
    this.pool.on('error', () => {});
  }

  /** One statement on its own (its own transaction), run again should a conflict roll it back. */
  query<R>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
    return retryingConflicts(() => this.#query<R>(sql, params, options));
  }

  async #query<R>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
    const timeoutMs = options?.timeoutMs;
    if (timeoutMs !== undefined) {
      return this.#session((session) =>
        withinTime<R>(
          session,
          this.#facts.get(session.client)?.prepared ?? null,
          { sql, params },
          { ...options, timeoutMs },
        ),
      );
    }
    if (options?.prepared) return this.session((session) => session.query<R>(sql, params, options));
    try {
      const values = params as unknown[] | undefined;
      const result = await (options?.giveUpAfterMs
        ? this.pool.query({ text: sql, values, query_timeout: options.giveUpAfterMs } as pg.QueryConfig)
        : this.pool.query(sql, values));
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    } catch (error) {
      throw wrap(error);
    }
  }

  /** BEGIN … COMMIT around fn, run again from the start should a conflict roll it back (fn must allow that). */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return retryingConflicts(() => this.#transaction(fn));
  }

  async #transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.#session(async (session) => {
      // BEGIN travels with the transaction's first batch of statements, and COMMIT with its last when the caller
      // says so: two round trips saved.
      let begun = false;
      let committed = false;
      const begin = async () => {
        if (committed) throw new Error('the transaction was committed by its last batch');
        if (!begun) await session.query('BEGIN');
        begun = true;
      };
      const tx: Transaction = {
        async query<R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
          await begin();
          return session.query<R>(sql, params);
        },
        async copyFrom(copy: string, chunks: Iterable<string>): Promise<void> {
          await begin();
          return session.copyFrom(copy, chunks);
        },
        async queries(statements: readonly Statement[], options?: BatchOptions): Promise<QueryResult<Row>[]> {
          if (committed) throw new Error('the transaction was committed by its last batch');
          const opening = begun ? [] : [{ sql: 'BEGIN' }];
          const closing = options?.commit ? [{ sql: 'COMMIT' }] : [];
          // Counted as begun before it is sent: should a statement fail, the transaction it opened is rolled back.
          begun = true;
          const results = await session
            .inTransaction([...opening, ...statements, ...closing])
            .catch((error: unknown) => {
              throw closing.length > 0 && isUnavailable(error) ? new CommitOutcomeUnknownError(error) : error;
            });
          committed = closing.length > 0;
          return results.slice(opening.length, opening.length + statements.length);
        },
      };
      try {
        const result = await fn(tx);
        if (begun && !committed) {
          await session.query('COMMIT').catch((error: unknown) => {
            throw isUnavailable(error) ? new CommitOutcomeUnknownError(error) : error;
          });
        }
        return result;
      } catch (error) {
        // A connection that timed out or broke is not asked to ROLLBACK, which would wait on it as long again: it
        // is discarded (session() releases it as broken), and PostgreSQL rolls back a transaction whose
        // connection is gone.
        if (begun && !isUnavailable(error)) await session.query('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }

  session<T>(fn: (session: Session & Transaction) => Promise<T>): Promise<T> {
    return this.#session(fn);
  }

  async #session<T>(fn: (session: PooledSession) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw wrap(error);
    }
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    this.#inUse.add(client);
    const prepared = this.#facts.get(client)?.prepared ?? null;
    const session: PooledSession = {
      client,
      async query<R>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
        try {
          if (options?.prepared && prepared) {
            const [result] = await runPrepared(client, prepared, [{ sql, params }]);
            return result as QueryResult<R>;
          }
          const result = await client.query(sql, params as unknown[] | undefined);
          return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
        } catch (error) {
          throw wrap(error);
        }
      },
      async exec(sql: string): Promise<void> {
        try {
          await client.query(sql);
        } catch (error) {
          throw wrap(error);
        }
      },
      async copyFrom(copy: string, chunks: Iterable<string>): Promise<void> {
        try {
          await pipeline(Readable.from(chunks), client.query(copyFromStdin(`${copy} FROM STDIN`)));
        } catch (error) {
          throw wrap(error);
        }
      },
      async queries(statements: readonly Statement[]): Promise<QueryResult<Row>[]> {
        if (statements.length === 0) return [];
        try {
          // Without parameters, pg sends the text as one simple Query message; PostgreSQL runs its statements in
          // order, each with its own snapshot, and stops at the first error.
          return await simpleQuery(client, simpleQueryText(statements));
        } catch (error) {
          throw wrap(error);
        }
      },
      /**
       * A batch of a transaction (it opens with BEGIN or runs inside one), in one round trip (a statement this
       * connection has not kept prepared yet adds one, once): its statements kept prepared on a direct connection;
       * else one simple query, whose statements are parsed and planned each time.
       */
      async inTransaction(statements: readonly Statement[]): Promise<QueryResult<Row>[]> {
        if (!prepared || statements.length === 0) return session.queries(statements);
        try {
          return await runPrepared(client, prepared, statements);
        } catch (error) {
          throw wrap(error);
        }
      },
    };
    try {
      return await fn(session);
    } catch (error) {
      if (isUnavailable(error)) broken ??= error as Error;
      throw error;
    } finally {
      this.#inUse.delete(client);
      client.off('error', onError);
      // A connection that failed is destroyed rather than handed to the next request.
      client.release(broken);
    }
  }

  #ended: Promise<void> | null = null;

  close(): Promise<void> {
    this.#ended ??= this.pool.end();
    return this.#ended;
  }

  async abort(): Promise<void> {
    // A transaction whose connection is gone is rolled back by the server: COMMIT is never sent.
    await Promise.all([...this.#inUse].map((client) => client.end().catch(() => {})));
    await this.close();
  }

  poolStats(): PoolStats {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }
}
