// Readiness in bounded time (http/readiness.ts): the health probe's rules on a clock the test moves, and /readyz through
// app.inject on an embedded store whose database is busy. End to end on PostgreSQL behind a stalled link:
// test/production/readiness-stall.e2e.test.ts.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { healthProbe, type DatabaseHealth } from '../../src/http/readiness.js';
import type { Database } from '../../src/store/db.js';
import { openTestDatabase } from '../support/databases.js';
import { until } from '../support/until.js';

/** A health query the test answers when it likes; `sent` counts the queries the probe sent. */
function heldQueries() {
  const held: { answer(): void; fail(error: Error): void }[] = [];
  const ask = () =>
    new Promise<void>((resolve, reject) => {
      held.push({ answer: resolve, fail: reject });
    });
  return { ask, held, sent: () => held.length };
}

/** Settles the checks started so far as far as they go without the clock moving. */
async function settled<T>(check: Promise<T>): Promise<T | 'waiting'> {
  let outcome: T | 'waiting' = 'waiting';
  void check.then((value) => (outcome = value));
  await vi.advanceTimersByTimeAsync(0);
  return outcome;
}

describe('the health probe', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends one query for the checks that come while it is out, and a new one for the check after it', async () => {
    const queries = heldQueries();
    const check = healthProbe(queries.ask, 750);
    const together = [check(), check()];
    await vi.advanceTimersByTimeAsync(100);
    together.push(check());
    await vi.advanceTimersByTimeAsync(100);
    expect(queries.sent()).toBe(1);
    queries.held[0]!.answer();
    expect(await Promise.all(together)).toEqual(Array(3).fill({ state: 'answering' }));

    const after = check();
    await vi.advanceTimersByTimeAsync(0);
    expect(queries.sent()).toBe(2);
    queries.held[1]!.answer();
    expect(await after).toEqual({ state: 'answering' });
  });

  it('calls the database silent once its query has been out for the patience, at once after that, without sending more', async () => {
    const queries = heldQueries();
    const check = healthProbe(queries.ask, 750);
    const first = check();
    await vi.advanceTimersByTimeAsync(500);
    const second = check();
    await vi.advanceTimersByTimeAsync(250);
    expect(await first).toEqual({ state: 'silent', forMs: 750 });
    expect(await second).toEqual({ state: 'silent', forMs: 750 });

    await vi.advanceTimersByTimeAsync(20_000);
    expect(await settled(check())).toEqual({ state: 'silent', forMs: 20_750 });
    expect(queries.sent()).toBe(1);

    // The query fails long after every check gave up on it (the pool's own bound): the next check asks again.
    queries.held[0]!.fail(new Error('Query read timeout'));
    await vi.advanceTimersByTimeAsync(0);
    const next = check();
    await vi.advanceTimersByTimeAsync(0);
    expect(queries.sent()).toBe(2);
    queries.held[1]!.answer();
    expect(await next).toEqual({ state: 'answering' });
  });

  it('says failing when the query fails within the patience, and asks again at the next check', async () => {
    const queries = heldQueries();
    const check = healthProbe(queries.ask);
    const first = check();
    await vi.advanceTimersByTimeAsync(10);
    queries.held[0]!.fail(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    expect(await first).toEqual({ state: 'failing' });
    const second = check();
    await vi.advanceTimersByTimeAsync(0);
    expect(queries.sent()).toBe(2);
    queries.held[1]!.fail(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    expect(await second).toEqual<DatabaseHealth>({ state: 'failing' });
  });
});

describe('/readyz while the embedded store is held by a long write', () => {
  let db: Database;
  let close: () => Promise<void>;
  let app: FastifyInstance;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase('embedded'));
    app = await buildApp({
      config: loadConfig({}),
      db,
      adminToken: 'readiness-test-admin-token',
      instanceId: 'ins_readiness_test',
      lifecycle: { closing: false, prepared: true },
    });
  });

  afterAll(async () => {
    await app?.close();
    await close?.();
  });

  it('answers 503 with Retry-After instead of waiting for the write, and 200 once it is done', async () => {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const write = db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await released;
    });

    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(503);
    expect(Number(ready.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(ready.json()).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      detail: expect.stringMatching(/^the database has not answered for \d+ ms$/),
    });
    const again = await app.inject({ method: 'GET', url: '/readyz' });
    expect(again.statusCode).toBe(503);

    release();
    await write;
    // The health query sent during the write answers just after it.
    await until(
      async () => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200,
      5_000,
      '/readyz to answer 200',
    );
    const after = await app.inject({ method: 'GET', url: '/readyz' });
    expect(after.json()).toEqual({ status: 'ready', store: 'embedded' });
  });
});
