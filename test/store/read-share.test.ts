import { afterEach, describe, expect, it, vi } from 'vitest';
import type { QueryOptions, Queryable, QueryResult } from '../../src/store/db.js';
import { DirectoryBusyError, ReadShare } from '../../src/store/read-share.js';

/** A database whose statements finish when the test says: each call is kept with its SQL, its options and its ending. */
function heldDatabase() {
  const calls: { sql: string; options: QueryOptions | undefined; finish(): void; fail(error: Error): void }[] = [];
  const db: Queryable = {
    query: <R>(sql: string, _params?: readonly unknown[], options?: QueryOptions) =>
      new Promise<QueryResult<R>>((resolve, reject) => {
        calls.push({ sql, options, finish: () => resolve({ rows: [], rowCount: 0 }), fail: reject });
      }),
  };
  return { db, calls };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ReadShare', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs at most its limit at once, and the others in the order they came as turns free', async () => {
    const { db, calls } = heldDatabase();
    const share = new ReadShare(db, 2, 5_000, 2_000);
    const done: string[] = [];
    const all = ['a', 'b', 'c', 'd'].map((sql) =>
      share.query(sql).then(
        () => done.push(sql) && 'done',
        (error: Error) => error.message,
      ),
    );
    await settle();
    expect(calls.map((c) => c.sql)).toEqual(['a', 'b']);
    expect(share.stats()).toEqual({ running: 2, waiting: 2 });
    calls[1]!.finish();
    await settle();
    expect(calls.map((c) => c.sql)).toEqual(['a', 'b', 'c']);
    calls[0]!.fail(new Error('statement failed'));
    await settle();
    // A failed statement frees its turn as well.
    expect(calls.map((c) => c.sql)).toEqual(['a', 'b', 'c', 'd']);
    calls[2]!.finish();
    calls[3]!.finish();
    expect(await Promise.all(all)).toEqual(['statement failed', 'done', 'done', 'done']);
    expect(done).toEqual(['b', 'c', 'd']);
    expect(share.stats()).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a statement that waited its whole wait, and leaves the queue to the others', async () => {
    vi.useFakeTimers();
    const { db, calls } = heldDatabase();
    const share = new ReadShare(db, 1, 5_000, 2_000);
    const first = share.query('first');
    const second = share.query('second');
    const secondRefused = expect(second).rejects.toBeInstanceOf(DirectoryBusyError);
    await vi.advanceTimersByTimeAsync(4_000);
    const third = share.query('third');
    await vi.advanceTimersByTimeAsync(1_000);
    await secondRefused;
    expect(share.stats()).toEqual({ running: 1, waiting: 1 });
    calls[0]!.finish();
    await first;
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.map((c) => c.sql)).toEqual(['first', 'third']);
    calls[1]!.finish();
    await third;
    expect(share.stats()).toEqual({ running: 0, waiting: 0 });
  });

  it("gives each statement the directory's time limit, keeping the caller's other options", async () => {
    const { db, calls } = heldDatabase();
    const share = new ReadShare(db, 2, 5_000, 2_000);
    const kept = share.query('kept', [], { prepared: true });
    const planned = share.query('planned');
    await settle();
    expect(calls.map((c) => [c.sql, c.options])).toEqual([
      ['kept', { prepared: true, timeoutMs: 2_000 }],
      ['planned', { timeoutMs: 2_000 }],
    ]);
    for (const call of calls) call.finish();
    await Promise.all([kept, planned]);
  });
});
