// The pg adapter: a connection pool on a PostgreSQL server, shared safely by any number of processes.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { DatabaseUnavailableError, isUnavailable, type Database, type QueryResult, type Session, type Transaction } from './db.js';

export interface PostgresOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  applicationName?: string;
}

// numeric stays a string (exact decimal); int8 counts fit in a double for every count hostdir keeps.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

function wrap(error: unknown): unknown {
  if (isUnavailable(error) && !(error instanceof DatabaseUnavailableError)) {
    return new DatabaseUnavailableError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  return error;
}

export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;

  constructor(options: PostgresOptions) {
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      statement_timeout: options.statementTimeoutMs,
      idle_in_transaction_session_timeout: Math.max(options.statementTimeoutMs * 2, 60_000),
      application_name: options.applicationName ?? 'hostdir',
    });
    // An idle client losing its connection must not crash the process; the next checkout reconnects.
    this.pool.on('error', () => {});
  }

  async query<R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    try {
      const result = await this.pool.query(sql, params as unknown[] | undefined);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    } catch (error) {
      throw wrap(error);
    }
  }

  async transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.session(async (session) => {
      await session.query('BEGIN');
      try {
        const result = await fn(session);
        await session.query('COMMIT');
        return result;
      } catch (error) {
        await session.query('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }

  async session<T>(fn: (session: Session & Transaction) => Promise<T>): Promise<T> {
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
    const session: Session & Transaction & { client: pg.PoolClient } = {
      client,
      async query<R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
        try {
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
    };
    try {
      return await fn(session);
    } catch (error) {
      if (isUnavailable(error)) broken ??= error as Error;
      throw error;
    } finally {
      client.off('error', onError);
      // A connection that failed is destroyed rather than handed to the next request.
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
