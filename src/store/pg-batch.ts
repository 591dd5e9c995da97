// Statements sent to PostgreSQL in one round trip over its extended protocol: each bound and executed in turn, one
// Sync after the last, so that PostgreSQL answers once and stops at the first error, as it does for the statements of
// one simple query; and a statement kept prepared on the connection is parsed once, and planned once its generic plan
// is as good. A pg "submittable" (the interface pg-cursor and pg-query-stream use): pg hands it the connection to write
// to and the server's answers, in order.
import pg from 'pg';
import type { QueryResult, Row, Statement } from './db.js';

/** The statements kept prepared on one connection, by name. */
export interface PreparedStatements {
  /** those PostgreSQL holds */
  held: Set<string>;
  /**
   * those whose Parse may or may not have been carried out (the statement that failed was being parsed): closed
   * before they are parsed again, since parsing a name PostgreSQL holds is an error and closing one it does not is not
   */
  unsure: Set<string>;
}

/** What a batch writes with: pg's Connection, as far as this uses it. */
interface Wire {
  parse(query: { text: string; name: string }): void;
  bind(config: { statement: string; values: (string | Buffer | null)[] }): void;
  describe(config: { type: 'P'; name: string }): void;
  execute(config: { portal: string }): void;
  close(config: { type: 'S'; name: string }): void;
  sync(): void;
  sendCopyFail(message: string): void;
  stream: { cork(): void; uncork(): void };
}

/** pg's row builder: its type parsers, and the INT8 one hostdir sets (store/postgres.ts). */
interface RowBuilder {
  rows: Row[];
  rowCount: number | null;
  addFields(fields: unknown[]): void;
  parseRow(values: unknown[]): Row;
  addRow(row: Row): void;
  addCommandComplete(message: unknown): void;
}
const RowBuilder = (pg as unknown as { Result: new (rowMode: undefined, types: typeof pg.types) => RowBuilder }).Result;

/**
 * A parameter as the extended protocol sends it: text, as the simple protocol writes it in (store/postgres.ts), so
 * that a statement means the same sent either way; a Buffer as binary.
 */
function wireValue(value: unknown): string | Buffer | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || Buffer.isBuffer(value)) return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  throw new TypeError(`cannot send a ${typeof value} as a statement's parameter`);
}

export class Batch {
  /** set by run(); pg wraps it to clear its read timeout */
  callback: ((error: Error | null, results?: QueryResult<Row>[]) => void) | undefined;
  readonly #statements: readonly Statement[];
  /** each statement's parameters as sent: made before anything is, so that a value that cannot be sent sends nothing */
  readonly #values: (string | Buffer | null)[][];
  readonly #prepared: PreparedStatements | null;
  readonly #nameOf: (sql: string) => string | undefined;
  readonly #results: RowBuilder[];
  /** statements whose answer (CommandComplete) has come */
  #done = 0;
  /** for each statement, the name it was parsed under in this batch, if it was */
  readonly #parsed: (string | undefined)[] = [];

  /**
   * `prepared`: the connection's prepared statements, null to prepare nothing; `nameOf`: the name a statement is kept
   * under, undefined to send it unnamed.
   */
  constructor(
    statements: readonly Statement[],
    prepared: PreparedStatements | null,
    nameOf: (sql: string) => string | undefined,
  ) {
    this.#statements = statements;
    this.#values = statements.map(({ params = [] }) => params.map(wireValue));
    this.#prepared = prepared;
    this.#nameOf = nameOf;
    this.#results = statements.map(() => new RowBuilder(undefined, pg.types));
  }

  /** Sends the statements on `client` and resolves with their results in order, or rejects with the first error. */
  run(client: pg.PoolClient): Promise<QueryResult<Row>[]> {
    return new Promise((resolve, reject) => {
      this.callback = (error, results) => (error ? reject(error) : resolve(results!));
      void client.query(this as unknown as pg.QueryConfig);
    });
  }

  submit(connection: Wire): void {
    connection.stream.cork();
    try {
      this.#statements.forEach(({ sql }, k) => {
        const values = this.#values[k]!;
        const name = (this.#prepared && this.#nameOf(sql)) || '';
        if (name === '' || !this.#prepared!.held.has(name)) {
          if (name !== '' && this.#prepared!.unsure.has(name)) connection.close({ type: 'S', name });
          connection.parse({ text: sql, name });
          if (name !== '') {
            this.#prepared!.held.add(name);
            this.#parsed[k] = name;
          }
        }
        connection.bind({ statement: name, values });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '' });
      });
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
  }

  handleRowDescription(message: { fields: unknown[] }): void {
    this.#results[this.#done]?.addFields(message.fields);
  }

  handleDataRow(message: { fields: unknown[] }): void {
    const result = this.#results[this.#done];
    result?.addRow(result.parseRow(message.fields));
  }

  handleCommandComplete(message: unknown): void {
    this.#results[this.#done]?.addCommandComplete(message);
    this.#done++;
  }

  handleEmptyQuery(): void {
    this.#done++;
  }

  handlePortalSuspended(): void {
    // Never asked for: every statement runs to its end.
  }

  handleCopyInResponse(connection: Wire): void {
    connection.sendCopyFail('a batch of statements holds no COPY');
  }

  handleCopyData(): void {}

  /** pg's last word on this batch when it fails: the server's first error, or the connection's. */
  handleError(error: Error): void {
    const prepared = this.#prepared;
    if (prepared) {
      this.#parsed.forEach((name, k) => {
        if (name === undefined) return;
        if (k < this.#done) prepared.unsure.delete(name);
        else {
          // The failed statement's Parse may have been carried out; those after it were skipped.
          prepared.held.delete(name);
          if (k === this.#done) prepared.unsure.add(name);
        }
      });
    }
    this.callback?.(error);
  }

  handleReadyForQuery(): void {
    for (const name of this.#parsed) if (name !== undefined) this.#prepared?.unsure.delete(name);
    this.callback?.(
      null,
      this.#results.map((result) => ({ rows: result.rows, rowCount: result.rowCount ?? 0 })),
    );
  }
}
