// Instants read from PostgreSQL (timestamptz) reach the API as ISO 8601 in UTC, to the millisecond, exactly as a Date
// read from the same value would print: whatever the connection's time zone, fraction or era.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../src/store/postgres.js';
import { isoOrNull } from '../../src/store/rows.js';
import { createTestDatabase } from '../support/server.js';

describe('instants read from PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: PostgresDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new PostgresDatabase({ url: database.url, poolSize: 1, statementTimeoutMs: 10_000 });
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const instants = [
    ['a whole second', '2026-01-02 03:04:05+00', '2026-01-02T03:04:05.000Z'],
    ['a tenth', '2026-01-02 03:04:05.1+00', '2026-01-02T03:04:05.100Z'],
    [
      'microseconds, cut to the millisecond as a Date cuts them',
      '2026-12-31 23:59:59.999999+00',
      '2026-12-31T23:59:59.999Z',
    ],
    ['another zone as sent', '2026-06-01 12:00:00.5+05:30', '2026-06-01T06:30:00.500Z'],
    ['the first year', '0001-01-01 00:00:00+00', '0001-01-01T00:00:00.000Z'],
  ] as const;

  it.each(instants)('%s, prepared or not', async (_, text, iso) => {
    for (const prepared of [false, true]) {
      const { rows } = await db.query<{ at: unknown }>('SELECT $1::timestamptz AS at', [text], { prepared });
      expect(isoOrNull(rows[0]!.at)).toBe(iso);
    }
  });

  it('reads the same instants on a connection in another time zone', async () => {
    await db.transaction(async (tx) => {
      await tx.query(`SET LOCAL TIME ZONE 'Asia/Kolkata'`);
      for (const [, text, iso] of instants) {
        const { rows } = await tx.query<{ at: unknown }>('SELECT $1::timestamptz AS at', [text]);
        expect(isoOrNull(rows[0]!.at)).toBe(iso);
      }
    });
  });

  it('takes a Date and any string a Date reads, as before', () => {
    expect(isoOrNull(new Date('2026-01-02T03:04:05.006Z'))).toBe('2026-01-02T03:04:05.006Z');
    expect(isoOrNull('2026-01-02T03:04:05Z')).toBe('2026-01-02T03:04:05.000Z');
    expect(isoOrNull(null)).toBeNull();
  });
});
