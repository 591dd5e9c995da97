// The public directory's share of a process's connections (DB_POOL_SIZE - SYNC_CONCURRENCY - 1): visitors' reads stuck in the
// database take at most their share, so that a provider's sync and reads are served meanwhile; each statement holding
// a turn is stopped at the directory's time limit, and the reads beyond the share are answered 503 with Retry-After
// once they have waited their turn as long as a pool connection is waited for.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Answer } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';

describe("the directory's share of the connections (PostgreSQL)", () => {
  let server: TestServer;
  let locker: pg.Client;

  beforeAll(async () => {
    // Four connections, two for syncs: the directory's share is one (DB_POOL_SIZE - SYNC_CONCURRENCY - 1).
    server = await startServer('postgres', {
      env: { DB_POOL_SIZE: '4', SYNC_CONCURRENCY: '2', SYNC_MAX_PER_WINDOW: '10', LOG_LEVEL: 'warn' },
    });
    locker = new pg.Client({ connectionString: server.databaseUrl! });
    await locker.connect();
  });

  afterAll(async () => {
    await locker?.end();
    await server?.stop();
  });

  it('serves a sync and the provider while the directory is stuck, and answers the reads beyond its share 503', async () => {
    const host = await onboard(server, 'Busy Day Hosting');
    expect((await sync(server, host.key, [product('d-1')])).status).toBe(200);
    // A list's statement reads the rates' version beside its products (the rates themselves are kept from the first
    // list): that version's table held, every list's statement waits on it, each on a connection of its own.
    expect((await call(server, 'GET', '/api/v1/directory/products?q=plan')).status).toBe(200);
    expect((await call(server, 'GET', '/search?q=plan')).status).toBe(200);
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE exchange_rates_version IN ACCESS EXCLUSIVE MODE');
    const started = Date.now();
    const reads: Promise<Answer>[] = [
      ...Array.from({ length: 8 }, (_, i) => call(server, 'GET', `/api/v1/directory/products?q=plan${i}`)),
      ...Array.from({ length: 4 }, () =>
        call(server, 'GET', '/search?q=anything', { headers: { accept: 'text/html' } }),
      ),
    ];
    await new Promise((resolve) => setTimeout(resolve, 300));

    const synced = await sync(server, host.key, [product('d-1'), product('d-2')]);
    expect(synced.status, synced.text).toBe(200);
    const own = await call(server, 'GET', '/api/v1/products?status=all&limit=100', { token: host.key });
    expect(own.status, own.text).toBe(200);
    expect(own.body.products.map((p: { external_id: string }) => p.external_id).sort()).toEqual(['d-1', 'd-2']);
    expect(Date.now() - started).toBeLessThan(4_000);
    const metrics = await call(server, 'GET', '/metrics');
    expect(metrics.text).toMatch(/hostdir_directory_statements\{state="running"\} 1/);
    expect(metrics.text).toMatch(/hostdir_directory_statements\{state="waiting"\} [1-9]/);

    // With the lock still held, every read is answered: the statement holding the turn is stopped at the directory's
    // time limit (2 s) and the next takes it, and the reads waiting for their turn give up after 5 seconds.
    const answers = await Promise.all(reads);
    await locker.query('ROLLBACK');
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(503);
      expect(answer.headers.get('retry-after')).toBeTruthy();
    }
    const problems = answers.filter((a) => a.headers.get('content-type')?.startsWith('application/problem+json'));
    expect(problems.some((a) => /the directory is answering as many requests as it may at once/.test(a.text))).toBe(
      true,
    );
    expect(
      problems.some((a) => /took longer than the 2 s the directory gives a read, and was stopped/.test(a.text)),
    ).toBe(true);
    // A browser gets a page that says so.
    expect(
      answers.some(
        (a) =>
          a.headers.get('content-type')?.startsWith('text/html') && a.text.includes('<h1>Try again in a moment</h1>'),
      ),
    ).toBe(true);
    expect((await call(server, 'GET', '/api/v1/directory/products')).status).toBe(200);
  }, 60_000);
});
