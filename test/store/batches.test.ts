// Statement batches: several statements in one round trip, their parameters written in as literals for PostgreSQL's
// simple query protocol. Whatever a value holds, it must arrive as the same value, never as SQL.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.js';
import { PostgresDatabase } from '../../src/store/postgres.js';
import { simpleQueryText } from '../../src/store/pg-statements.js';
import { openEmbeddedTestDatabase } from '../support/databases.js';
import { createTestDatabase, STORES } from '../support/server.js';

describe('simpleQueryText', () => {
  it('writes each parameter in as a quoted literal of unknown type, like the extended protocol sends it', () => {
    expect(
      simpleQueryText([
        { sql: 'SELECT $1, $2, $3, $4', params: ["it's", 42, false, null] },
        { sql: 'SELECT $1::timestamptz', params: [new Date('2026-01-02T03:04:05.678Z')] },
      ]),
    ).toBe(`SELECT 'it''s', '42', 'false', NULL;\nSELECT '2026-01-02T03:04:05.678Z'::timestamptz`);
  });

  it('leaves placeholders inside quoted strings alone, and doubles backslashes in an E string', () => {
    expect(simpleQueryText([{ sql: "SELECT '$1 costs', $1, '''$2'''", params: ['a\\b'] }])).toBe(
      "SELECT '$1 costs',  E'a\\\\b', '''$2'''",
    );
  });

  it('writes a list as the text of an array, each element quoted', () => {
    expect(
      simpleQueryText([
        {
          sql: 'SELECT $1::text[], $2::bigint[]',
          params: [
            ['a', 'b "c"', null],
            [1, 2],
          ],
        },
      ]),
    ).toBe(
      `SELECT '{"a","b \\"c\\"",NULL}'::text[], '{"1","2"}'::bigint[]`
        .replace(`'{"a"`, ` E'{"a"`)
        .replaceAll('\\"', '\\\\"'),
    );
  });

  it('refuses a placeholder without a value, and values it cannot write', () => {
    expect(() => simpleQueryText([{ sql: 'SELECT $2', params: ['one'] }])).toThrow(/\$2 has no value/);
    expect(() => simpleQueryText([{ sql: 'SELECT $1', params: [{ a: 1 }] }])).toThrow(TypeError);
    expect(() => simpleQueryText([{ sql: 'SELECT $1', params: [[['nested']]] }])).toThrow(TypeError);
  });
});

// Any text, however hostile, comes back unchanged from both stores, each statement seeing the ones before it.
describe.each(STORES)('batches on the %s store', (kind) => {
  let db: Database;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    if (kind === 'postgres') {
      const database = await createTestDatabase();
      // The old string syntax, where a backslash escapes: literals must still read back as written.
      const setup = new PostgresDatabase({ url: database.url, poolSize: 1, statementTimeoutMs: 10_000 });
      await setup.query(
        `ALTER DATABASE ${new URL(database.url).pathname.slice(1)} SET standard_conforming_strings = off`,
      );
      await setup.close();
      const postgres = new PostgresDatabase({ url: database.url, poolSize: 2, statementTimeoutMs: 10_000 });
      db = postgres;
      close = async () => {
        await postgres.close();
        await database.drop();
      };
      const { rows } = await db.query('SHOW standard_conforming_strings');
      expect(rows).toEqual([{ standard_conforming_strings: 'off' }]);
    } else {
      ({ db, close } = await openEmbeddedTestDatabase());
    }
  });

  afterAll(async () => {
    await close?.();
  });

  it('returns every string exactly as sent', async () => {
    // No NUL: PostgreSQL text cannot hold it (the sync refuses it before any statement is built).
    const unit = fc.oneof(
      fc.constantFrom("'", '\\', '$1', ';', '--', '\n', '"', "E'"),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    const text = fc.string({ unit, maxLength: 40 }).filter((s) => !s.includes('\u0000'));
    // Nor a UTF-16 surrogate without its pair: it has no UTF-8 form (the sync refuses it too).
    const wellFormed = text.filter(
      (s) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s),
    );
    await fc.assert(
      fc.asyncProperty(wellFormed, wellFormed, async (a, b) => {
        const results = await db.transaction((tx) =>
          tx.queries([
            { sql: 'SELECT $1::text AS a, $2::text AS b', params: [a, b] },
            { sql: "SELECT $1::text || '$2' AS c", params: [`'; SELECT 1; --${a}`] },
          ]),
        );
        expect(results.map((r) => r.rows)).toEqual([[{ a, b }], [{ c: `'; SELECT 1; --${a}$2` }]]);
      }),
      { numRuns: 60 },
    );
  });

  it('returns every string and list exactly as sent in a statement given a time limit (one simple query on PostgreSQL)', async () => {
    const unit = fc.oneof(
      fc.constantFrom("'", '\\', '"', '{', '}', ',', 'NULL', ' ', '$1'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    const text = fc
      .string({ unit, maxLength: 20 })
      .filter(
        (s) =>
          !s.includes('\u0000') && !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s),
      );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(text, { nil: null }), { maxLength: 5 }), text, async (list, a) => {
        const { rows } = await db.query('SELECT $1::text[] AS list, $2::text AS a', [list, a], { timeoutMs: 10_000 });
        expect(rows).toEqual([{ list, a }]);
      }),
      { numRuns: 60 },
    );
  });

  it('runs the statements in order in the transaction, commits with the last batch when asked, and stops at an error', async () => {
    await db.query('CREATE TABLE batch_rows (n int PRIMARY KEY)');
    const [, counted] = await db.transaction((tx) =>
      tx.queries(
        [
          { sql: 'INSERT INTO batch_rows VALUES ($1), ($2)', params: [1, 2] },
          { sql: 'SELECT count(*)::int AS n FROM batch_rows' },
        ],
        { commit: true },
      ),
    );
    expect(counted!.rows).toEqual([{ n: 2 }]);
    await expect(
      db.transaction((tx) =>
        tx.queries([
          { sql: 'INSERT INTO batch_rows VALUES ($1)', params: [3] },
          { sql: 'INSERT INTO batch_rows VALUES (1)' },
          { sql: 'INSERT INTO batch_rows VALUES (4)' },
        ]),
      ),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await db.query('SELECT n FROM batch_rows ORDER BY n')).rows).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('refuses statements after the batch that committed, which would run outside the transaction', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.queries([{ sql: 'SELECT 1' }], { commit: true });
        await tx.query('INSERT INTO batch_rows VALUES (5)');
      }),
    ).rejects.toThrow(/committed by its last batch/);
    expect((await db.query('SELECT count(*)::int AS n FROM batch_rows WHERE n = 5')).rows).toEqual([{ n: 0 }]);
  });
});
