// The public directory's share of a process's database connections: at most so many of its statements at once, each
// for a bounded time, so that however slow or many the visitors' searches, the providers' syncs and reads and the
// operator's requests keep connections of their own.
import type { QueryOptions, Queryable, QueryResult, Row } from './db.js';

/** Every statement the directory may run at once is running, and a caller waited as long as it may for its turn. */
export class DirectoryBusyError extends Error {
  constructor(readonly waitedMs: number) {
    super(`every directory statement this process may run at once is running; waited ${waitedMs} ms`);
    this.name = 'DirectoryBusyError';
  }
}

/**
 * A Queryable that runs at most `limit` statements at once, each stopped once it has run `statementTimeoutMs` (see
 * QueryOptions.timeoutMs); the others wait their turn, first come first served, up to `waitMs`.
 */
export class ReadShare implements Queryable {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    readonly db: Queryable,
    readonly limit: number,
    readonly waitMs: number,
    readonly statementTimeoutMs: number,
  ) {}

  async query<R = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult<R>> {
    await this.#turn();
    try {
      return await this.db.query<R>(sql, params, { ...options, timeoutMs: this.statementTimeoutMs });
    } finally {
      this.#done();
    }
  }

  /** statements running, and statements waiting for their turn: for the metrics */
  stats(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  #turn(): Promise<void> {
    if (this.#running < this.limit) {
      this.#running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiting.splice(this.#waiting.indexOf(go), 1);
        reject(new DirectoryBusyError(this.waitMs));
      }, this.waitMs);
      this.#waiting.push(go);
    });
  }

  /** A finished statement hands its turn to the first waiting one. */
  #done(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running--;
  }
}
