// A visitor's read of the directory runs for a bounded time (DIRECTORY_STATEMENT_TIMEOUT_MS in http/app.ts): a
// statement that runs past it is stopped by PostgreSQL and the request answered 503 with Retry-After, as a page to a
// browser, while the rest of the server answers; the connection it ran on serves the next request. Here the search's
// statement runs long because the table of the rates' version, which it reads beside its products, is held locked
// by another session: a statement that runs past the limit for any reason is stopped alike.
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { touchInstance } from '../../src/store/instances.js';
import { migrate } from '../../src/store/migrate.js';
import { PostgresDatabase } from '../../src/store/postgres.js';
import { createTestDatabase } from '../support/server.js';

const adminToken = 'test-admin-directory-timeout';

describe("a directory read's time limit (PostgreSQL)", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: PostgresDatabase;
  let app: FastifyInstance;
  let locker: pg.Client;
  /** outside any transaction: pg_stat_activity is read once per transaction */
  let observer: pg.Client;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = new PostgresDatabase({ url: database.url, poolSize: 6, statementTimeoutMs: 30_000 });
    await migrate(db);
    await touchInstance(db, 'ins_directory_timeout');
    app = await buildApp({
      config: loadConfig({}),
      db,
      adminToken,
      instanceId: 'ins_directory_timeout',
      lifecycle: { closing: false, prepared: true },
    });
    const created = await app.inject({
      method: 'POST',
      url: '/admin/v1/hosts',
      headers: { authorization: `Bearer ${adminToken}` },
      payload: { name: 'Slow Day Hosting' },
    });
    expect(created.statusCode).toBe(201);
    key = created.json().api_key.key;
    const synced = await app.inject({
      method: 'POST',
      url: '/api/v1/sync/products',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        products: [{ external_id: 'p-1', name: 'Plan One', category: 'vps_cloud', price: 5, currency: 'EUR' }],
      }),
    });
    expect(synced.statusCode, synced.body).toBe(200);
    locker = new pg.Client({ connectionString: database.url });
    observer = new pg.Client({ connectionString: database.url });
    await Promise.all([locker.connect(), observer.connect()]);
  });

  afterAll(async () => {
    await locker?.end();
    await observer?.end();
    await app?.close();
    await db?.close();
    await database?.drop();
  });

  /** The server's connections whose statement waits on a lock, by backend id. */
  const waitingOnLock = async (): Promise<number[]> =>
    (
      await observer.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'hostdir' AND wait_event_type = 'Lock'`,
      )
    ).rows.map((row) => row.pid);

  it('answers a read that runs past its limit 503, serves the provider meanwhile, and keeps the connection serving', async () => {
    const search = (accept: string) =>
      app.inject({ method: 'GET', url: '/api/v1/directory/products?q=plan', headers: { accept } });
    expect((await search('application/json')).statusCode).toBe(200);

    await locker.query('BEGIN');
    await locker.query('LOCK TABLE exchange_rates_version IN ACCESS EXCLUSIVE MODE');
    try {
      const json = search('application/json');
      const page = app.inject({ method: 'GET', url: '/search?q=plan', headers: { accept: 'text/html' } });
      let stuck: number[] = [];
      while (stuck.length < 2) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        stuck = await waitingOnLock();
      }
      // Meanwhile the provider reads its own catalogue.
      const own = await app.inject({
        method: 'GET',
        url: '/api/v1/products',
        headers: { authorization: `Bearer ${key}` },
      });
      expect(own.statusCode, own.body).toBe(200);
      expect(own.json().products.map((p: { external_id: string }) => p.external_id)).toEqual(['p-1']);

      const answered = await json;
      expect(answered.statusCode).toBe(503);
      expect(answered.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answered.headers['retry-after']).toBe('5');
      expect(answered.json()).toMatchObject({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        detail: expect.stringMatching(
          /^this request took longer than the 2 s the directory gives a read, and was stopped: a narrower search/,
        ),
      });
      const shown = await page;
      expect(shown.statusCode).toBe(503);
      expect(shown.headers['content-type']).toMatch(/^text\/html/);
      expect(shown.headers['retry-after']).toBe('5');
      expect(shown.body).toContain('<h1>Try again in a moment</h1>');
      expect(shown.body).toContain(
        'This request took longer than the 2 s the directory gives a read, and was stopped: a narrower search',
      );

      // Every statement that met the lock is stopped in its turn (a page's others, answered already, as well), rolled
      // back on its connection, which stays open and idle.
      while ((await waitingOnLock()).length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const { rows } = await observer.query<{ pid: number; state: string }>(
        `SELECT pid, state FROM pg_stat_activity WHERE pid = ANY ($1::int[])`,
        [stuck],
      );
      expect(rows.map((row) => row.state)).toEqual(['idle', 'idle']);
    } finally {
      await locker.query('ROLLBACK');
    }
    const again = await search('application/json');
    expect(again.statusCode).toBe(200);
    expect(again.json().products.map((p: { name: string }) => p.name)).toEqual(['Plan One']);
  });
});
