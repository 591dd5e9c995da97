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

/**
 * PostgreSQL's own page cache inside PGlite. Its default (128 MB) becomes the process's own memory as pages are used,
 * and is never given back, while the embedded store's files are in the system's page cache anyway: at 16 MB an
 * embedded server started at about 110 MB less, and at 8 MB its WebAssembly memory is about 8 MB smaller again, before
 * and after a large sync (docs/operations.md, "Sizing").
 */
const SHARED_BUFFERS = '8MB';

/** About how much COPY input one statement of the embedded store reads (see copyFrom). */
export const COPY_PIECE_BYTES = 1 << 20;

/**
 * COPY input cut into pieces of whole rows, each about COPY_PIECE_BYTES long (a row longer than that is a piece of
 * its own): a chunk may end in the middle of a row, so a piece ends at the last line break it holds.
 */
export function* copyPieces(chunks: Iterable<string>): Generator<string[]> {
  let piece: string[] = [];
  let length = 0;
  for (const chunk of chunks) {
    piece.push(chunk);
    length += chunk.length;
    if (length < COPY_PIECE_BYTES) continue;
    const end = chunk.lastIndexOf('\n');
    if (end < 0) continue;
    const rest = chunk.slice(end + 1);
    piece[piece.length - 1] = chunk.slice(0, end + 1);
    yield piece;
    piece = rest ? [rest] : [];
    length = rest.length;
  }
  if (length > 0) yield piece;
}

/** The longest COPY piece (in UTF-8 bytes) that CopyInput holds in its buffer; a longer one gets a Blob of its own. */
export const COPY_INPUT_MAX_BYTES = 8 << 20;

/**
 * The COPY input PGlite reads from /dev/blob, in one buffer kept for the store's life: PGlite reads the bytes of what
 * its `blob` option's `arrayBuffer()` gives, and a new Blob per piece left three copies of each (its UTF-8 parts, the
 * Blob's own bytes, the ArrayBuffer read from it) to the garbage collector, which freed them only once tens of
 * megabytes had piled up in glibc's heap. The buffer is resizable,
 * so that each piece is written into it and the view PGlite makes of it is as long as the piece. It is used under the
 * store's lock, by one statement at a time.
 */
class CopyInput extends Blob {
  readonly #buffer = new ArrayBuffer(0, { maxByteLength: COPY_INPUT_MAX_BYTES });
  readonly #encoder = new TextEncoder();

  constructor() {
    // Only arrayBuffer() is read (by PGlite); the Blob's own contents stay empty.
    super([]);
  }

  /** The piece written into the buffer (this Blob), or, past COPY_INPUT_MAX_BYTES, a Blob of its own. */
  holding(piece: string[]): Blob {
    let bytes = 0;
    for (const part of piece) bytes += Buffer.byteLength(part);
    if (bytes > COPY_INPUT_MAX_BYTES) return new Blob(piece);
    this.#buffer.resize(bytes);
    const view = new Uint8Array(this.#buffer);
    let at = 0;
    for (const part of piece) at += this.#encoder.encodeInto(part, view.subarray(at)).written;
    return this;
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.#buffer);
  }
}

export class EmbeddedDatabase implements Database {
  readonly kind = 'embedded' as const;
  readonly #db: PGlite;
  readonly #lock = new Lock();
  readonly #copyInput = new CopyInput();

  private constructor(db: PGlite) {
    this.#db = db;
  }

  static async open(dataDir: string | null): Promise<EmbeddedDatabase> {
    if (dataDir) await mkdir(dataDir, { recursive: true });
    const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`];
    const db = await PGlite.create(dataDir ? { dataDir, startParams } : { startParams });
    return new EmbeddedDatabase(db);
  }

  #direct(): Session & Transaction {
    const db = this.#db;
    const copyInput = this.#copyInput;
    return {
      async query<R>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
        const result = await db.query<R>(sql, params as unknown[] | undefined);
        return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
      },
      async exec(sql: string): Promise<void> {
        await db.exec(sql);
      },
      async copyFrom(copy: string, chunks: Iterable<string>): Promise<void> {
        // PGlite reads COPY input from a Blob named /dev/blob, whole. A large catalogue therefore goes as several COPYs
        // of whole rows, each of about COPY_PIECE_BYTES, written in turn into the one buffer of CopyInput. PGlite runs
        // each statement on the event loop, and its promises settle without I/O: between pieces the loop is let
        // through (setImmediate), so that the process goes on answering what needs no database (a liveness probe)
        // while a large catalogue is written.
        for (const piece of copyPieces(chunks)) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          await db.query(`${copy} FROM '/dev/blob'`, [], { blob: copyInput.holding(piece) });
        }
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
