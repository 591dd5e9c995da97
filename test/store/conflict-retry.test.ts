// Two transactions that take the same rows in opposite orders deadlock; PostgreSQL rolls one of them back (40P01).
// The adapter runs that one again, so both commit and the caller never sees the conflict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.js';
import { openTestDatabase } from '../support/databases.js';

describe('a transaction rolled back by a deadlock (postgres store)', () => {
  let db: Database;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase('postgres'));
    await db.query('CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)');
    await db.query('INSERT INTO counters VALUES (1, 0), (2, 0)');
  });

  afterAll(async () => {
    await close?.();
  });

  it('is run again, and both transactions commit', async () => {
    let started = 0;
    let release!: () => void;
    const bothHoldTheirFirstRow = new Promise<void>((resolve) => (release = resolve));
    const attempts: number[] = [];
    const increment = (first: number, second: number) =>
      db.transaction(async (tx) => {
        attempts.push(first);
        await tx.query('UPDATE counters SET n = n + 1 WHERE id = $1', [first]);
        if (++started === 2) release();
        await bothHoldTheirFirstRow;
        await tx.query('UPDATE counters SET n = n + 1 WHERE id = $1', [second]);
      });
    await Promise.all([increment(1, 2), increment(2, 1)]);
    // One of the two was rolled back and ran a second time.
    expect(attempts).toHaveLength(3);
    const { rows } = await db.query<{ id: number; n: number }>('SELECT id, n FROM counters ORDER BY id');
    expect(rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });
});
