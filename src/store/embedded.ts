// The PGlite adapter: PostgreSQL compiled to WebAssembly, in-process, persisted under DATA_DIR.
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import type { Database, QueryResult, Row, Session, Statement, Transaction } from './db.js';

/**
 * PGlite has a single connection: statements of concurrent callers would interleave inside one another's
 * transactions. Every use therefore takes this lock first, which also gives the per-host serialization
 * that row locks give on a server.
 */
class Lock {
  #tail: Promise<void> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.then(
      () => {},
      () => {},
    );
    return result;
  }
}

export class EmbeddedDatabase implements Database {
  readonly kind = 'embedded' as const;
  readonly #db: PGlite;
  readonly #lock = new Lock();

  private constructor(db: PGlite) {
    this.#db = db;
  }

  static async open(dataDir: string | null): Promise<EmbeddedDatabase> {
    if (dataDir) await mkdir(dataDir, { recursive: true });
    const db = dataDir ? await PGlite.create({ dataDir }) : await PGlite.create();
    return new EmbeddedDatabase(db);
  }

  #direct(): Session & Transaction {
    const db = this.#db;
    return {
      async query<R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
        const result = await db.query<R>(sql, params as unknown[] | undefined);
        return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
      },
      async exec(sql: string): Promise<void> {
        await db.exec(sql);
      },
      async copyFrom(copy: string, chunks: Iterable<string>): Promise<void> {
        // PGlite reads COPY input from a Blob named /dev/blob; the Blob takes the chunks without joining them.
        await db.query(`${copy} FROM '/dev/blob'`, [], { blob: new Blob([...chunks]) });
      },
      async queries(statements: readonly Statement[]): Promise<QueryResult<Row>[]> {
        // In-process, a round trip costs nothing: the statements run one by one, with their parameters bound.
        const results: QueryResult<Row>[] = [];
        for (const { sql, params } of statements) {
          const result = await db.query<Row>(sql, params as unknown[] | undefined);
          results.push({ rows: result.rows, rowCount: result.affectedRows ?? result.rows.length });
        }
        return results;
      },
    };
  }

  query<R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
    return this.#lock.run(() => this.#direct().query<R>(sql, params));
  }

  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.#lock.run(async () => {
      const session = this.#direct();
      let committed = false;
      const open = () => {
        if (committed) throw new Error('the transaction was committed by its last batch');
      };
      const tx: Transaction = {
        query: async (sql, params) => (open(), session.query(sql, params)),
        copyFrom: async (copy, chunks) => (open(), session.copyFrom(copy, chunks)),
        async queries(statements, options) {
          open();
          const results = await session.queries(statements);
          if (options?.commit) {
            await session.exec('COMMIT');
            committed = true;
          }
          return results;
        },
      };
      await session.exec('BEGIN');
      try {
        const result = await fn(tx);
        if (!committed) await session.exec('COMMIT');
        return result;
      } catch (error) {
        await session.exec('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }

  session<T>(fn: (session: Session) => Promise<T>): Promise<T> {
    return this.#lock.run(() => fn(this.#direct()));
  }

  async close(): Promise<void> {
    await this.#lock.run(() => this.#db.close());
  }

  /** In-process: an unfinished transaction is never written to disk, so stopping the process is the abort. */
  async abort(): Promise<void> {}

  poolStats(): null {
    return null;
  }
}
