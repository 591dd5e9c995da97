// Prepared statements on PostgreSQL: kept on a connection straight to the server (a sync's statements are then parsed
// and planned once per connection), never through PgBouncer in transaction mode, where the next transaction may run
// on a server connection that never saw them. What the server holds is asked of the server itself: a statement kept
// with SQL's PREPARE shows there as the text of the query that prepared it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../src/store/postgres.js';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { createTestDatabase } from '../support/server.js';

const ADD = 'SELECT $1::int + 1 AS n';
const PREPARED = `SELECT count(*)::int AS n FROM pg_prepared_statements
  WHERE position('PREPARE ' || name || ' AS ' || $1 || ';' in statement || ';') > 0`;

describe('prepared statements on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let bouncer: PgBouncer;

  beforeAll(async () => {
    database = await createTestDatabase();
    bouncer = await startPgBouncer({ poolSize: 2 });
  });

  afterAll(async () => {
    await bouncer?.stop();
    await database?.drop();
  });

  it('keeps a transaction batch and a statement asked for prepared on a direct connection, and not any other', async () => {
    // One connection: every transaction below runs on it.
    const db = new PostgresDatabase({ url: database.url, poolSize: 1, statementTimeoutMs: 10_000 });
    try {
      const [added] = await db.transaction((tx) => tx.queries([{ sql: ADD, params: [41] }], { commit: true }));
      expect(added!.rows).toEqual([{ n: 42 }]);
      expect((await db.query('SELECT $1::int * 2 AS n', [21], { prepared: true })).rows).toEqual([{ n: 42 }]);
      expect((await db.query('SELECT $1::int - 1 AS n', [43])).rows).toEqual([{ n: 42 }]);
      const held = async (sql: string) =>
        (await db.transaction((tx) => tx.queries([{ sql: PREPARED, params: [sql] }], { commit: true })))[0]!.rows;
      expect(await held(ADD)).toEqual([{ n: 1 }]);
      expect(await held('SELECT $1::int * 2 AS n')).toEqual([{ n: 1 }]);
      expect(await held('SELECT $1::int - 1 AS n')).toEqual([{ n: 0 }]);
      // Transaction control is not kept: nothing is planned for it.
      expect(await held('BEGIN')).toEqual([{ n: 0 }]);
      // What the server keeps is the statements' text, never the query that ran them with their values.
      const executed =
        "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE position('EXEC' || 'UTE' in statement) > 0";
      const [kept] = await db.transaction((tx) => tx.queries([{ sql: executed }], { commit: true }));
      expect(kept!.rows).toEqual([{ n: 0 }]);
      // Run again, the prepared statement answers as the first time.
      const [again] = await db.transaction((tx) => tx.queries([{ sql: ADD, params: [1] }], { commit: true }));
      expect(again!.rows).toEqual([{ n: 2 }]);
    } finally {
      await db.close();
    }
  });

  it('stops a batch at its first error and keeps every statement usable after it, whatever it was parsing', async () => {
    const db = new PostgresDatabase({ url: database.url, poolSize: 1, statementTimeoutMs: 10_000 });
    const run = (statements: { sql: string; params?: unknown[] }[]) =>
      db.transaction((tx) => tx.queries(statements, { commit: true }));
    try {
      await db.query('CREATE TABLE prepared_rows (n int PRIMARY KEY)');
      // A parameter the statement refuses: it was parsed (maybe), bound and refused; nothing of the batch is kept.
      const CAST = 'SELECT $1::int AS n';
      await expect(
        run([
          { sql: 'INSERT INTO prepared_rows VALUES ($1)', params: [1] },
          { sql: CAST, params: ['x'] },
        ]),
      ).rejects.toMatchObject({ code: '22P02' });
      expect(
        (await run([{ sql: CAST, params: ['7'] }, { sql: 'SELECT count(*)::int AS n FROM prepared_rows' }])).map(
          (r) => r.rows,
        ),
      ).toEqual([[{ n: 7 }], [{ n: 0 }]]);
      // A failure in the middle: the statements after it were never parsed, and are parsed when next sent.
      const BEFORE = 'SELECT $1::int + 100 AS n';
      const AFTER = 'SELECT $1::int + 200 AS n';
      await expect(
        run([
          { sql: BEFORE, params: [1] },
          { sql: 'SELECT 1 / $1::int AS n', params: [0] },
          { sql: AFTER, params: [1] },
        ]),
      ).rejects.toMatchObject({
        code: '22012',
      });
      expect(
        (
          await run([
            { sql: AFTER, params: [2] },
            { sql: BEFORE, params: [2] },
          ])
        ).map((r) => r.rows),
      ).toEqual([[{ n: 202 }], [{ n: 102 }]]);
      expect((await run([{ sql: 'SELECT 1 / $1::int AS n', params: [1] }]))[0]!.rows).toEqual([{ n: 1 }]);
      // A statement PostgreSQL cannot prepare fails the batch, and leaves the one prepared with it usable.
      const GOOD = 'SELECT $1::int + 300 AS n';
      await expect(
        run([
          { sql: GOOD, params: [1] },
          { sql: 'SELECT n FROM no_such_table WHERE n = $1', params: [1] },
        ]),
      ).rejects.toMatchObject({ code: '42P01' });
      expect((await run([{ sql: GOOD, params: [3] }]))[0]!.rows).toEqual([{ n: 303 }]);
      expect((await run([{ sql: BEFORE, params: [3] }]))[0]!.rows).toEqual([{ n: 103 }]);
      // A value no statement can be sent with is refused before anything is sent; the connection serves on.
      await expect(run([{ sql: CAST, params: [{ n: 1 }] }])).rejects.toThrow(TypeError);
      expect((await run([{ sql: CAST, params: ['8'] }]))[0]!.rows).toEqual([{ n: 8 }]);
    } finally {
      await db.close();
    }
  });

  it('prepares nothing through PgBouncer, and every transaction works whichever server connection it gets', async () => {
    // More client connections than PgBouncer has server connections, so that transactions move between them.
    const db = new PostgresDatabase({ url: bouncer.urlFor(database.url), poolSize: 4, statementTimeoutMs: 10_000 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, k) =>
          db.transaction(async (tx) => {
            const [added, held] = await tx.queries(
              [
                { sql: ADD, params: [k] },
                { sql: PREPARED, params: [ADD] },
              ],
              { commit: true },
            );
            return [added!.rows[0]!.n, held!.rows[0]!.n];
          }),
        ),
      );
      expect(answers).toEqual(Array.from({ length: 24 }, (_, k) => [k + 1, 0]));
      expect((await db.query('SELECT $1::int * 2 AS n', [21], { prepared: true })).rows).toEqual([{ n: 42 }]);
    } finally {
      await db.close();
    }
  });
});
