// PostgreSQL out of reach (a proxy between the server and the database is cut, or stalls): 503 with
// Retry-After and never 500, no partial sync, the process stays up, and it recovers by itself.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync, type Answer, type Onboarded } from '../support/api.js';
import type { TestServer } from '../support/server.js';
import { startServerBehindProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/until.js';

function expectUnavailable(answer: Answer): void {
  expect(answer.status, answer.text).toBe(503);
  expect(answer.body.code).toBe('SERVICE_UNAVAILABLE');
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

describe('the database link fails under a running server', () => {
  let stop: () => Promise<void>;
  let proxy: TcpProxy;
  let server: TestServer;
  let direct: pg.Client;
  let host: Onboarded;
  /** every status answered by a reader that polls the listing during the whole test */
  const seen: number[] = [];
  let reading = true;
  let reader: Promise<void>;

  const listingOf = async () =>
    (
      await direct.query<{ external_id: string; price: string; status: string }>(
        `SELECT p.external_id, p.price::text AS price, p.status FROM products p JOIN hosts h ON h.id = p.host_id
         WHERE h.slug = $1 ORDER BY p.external_id`,
        [host.slug],
      )
    ).rows;
  const appliedRuns = async () =>
    (
      await direct.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM sync_runs r JOIN hosts h ON h.id = r.host_id WHERE h.slug = $1 AND NOT r.dry_run`,
        [host.slug],
      )
    ).rows[0]!.n;

  beforeAll(async () => {
    ({ server, proxy, direct, stop } = await startServerBehindProxy({
      DB_POOL_SIZE: '4',
      STATEMENT_TIMEOUT_MS: '3000',
      SYNC_MAX_PER_WINDOW: '100',
      LOG_LEVEL: 'warn',
    }));
    host = await onboard(server, 'Outage Hosting');
    expect((await sync(server, host.key, [product('kept-1'), product('kept-2')])).status).toBe(200);
    reader = (async () => {
      while (reading) {
        const answer = await call(server, 'GET', '/api/v1/products', { token: host.key }).catch(() => null);
        seen.push(answer ? answer.status : 0);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
  });

  afterAll(async () => {
    reading = false;
    await reader;
    await stop?.();
  });

  it('answers 503 to the sync it cuts, and to everything while cut; applies nothing; recovers when healed', async () => {
    const before = await listingOf();
    const runsBefore = await appliedRuns();

    // Cut while the sync's transaction is open in PostgreSQL (it holds the host row lock).
    const big = Array.from({ length: 10_000 }, (_, i) => product(`new-${i}`, { price: 1 }));
    const cutSync = sync(server, host.key, big);
    await until(
      async () =>
        (
          await direct.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL`,
          )
        ).rows.length > 0,
      60_000,
      'the sync transaction to start',
    );
    proxy.cut();
    expectUnavailable(await cutSync);

    expectUnavailable(await call(server, 'GET', '/readyz'));
    expect((await call(server, 'GET', '/healthz')).status).toBe(200);
    expectUnavailable(await sync(server, host.key, [product('during-outage')]));
    expectUnavailable(await call(server, 'GET', '/api/v1/products', { token: host.key }));
    expectUnavailable(await admin(server, 'GET', '/hosts'));

    // The cut transaction is rolled back by PostgreSQL: nothing of it is visible.
    await until(
      async () =>
        (
          await direct.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL`,
          )
        ).rows.length === 0,
      30_000,
      'the cut transaction to end',
    );
    expect(await listingOf()).toEqual(before);
    expect(await appliedRuns()).toBe(runsBefore);

    proxy.heal();
    await until(async () => (await call(server, 'GET', '/readyz')).status === 200, 15_000, '/readyz to recover');
    const resumed = await sync(server, host.key, [product('kept-1'), product('after-outage')]);
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body.summary).toMatchObject({ unchanged: 1, created: 1, deactivated: 1 });
    expect(await appliedRuns()).toBe(runsBefore + 1);
    expect(server.process().exitCode).toBeNull();
  }, 180_000);

  it('answers 503 once its timeouts pass when the database stops answering, and recovers', async () => {
    proxy.stall();
    // The database never answers until healed: only the timeouts (STATEMENT_TIMEOUT_MS, plus 5 s for a query that
    // gets no answer; 5 s for a connection that gets none) can answer these.
    const [ready, listing] = await Promise.all([
      call(server, 'GET', '/readyz'),
      call(server, 'GET', '/api/v1/products', { token: host.key }),
    ]);
    expectUnavailable(ready);
    expectUnavailable(listing);

    proxy.heal();
    await until(async () => (await call(server, 'GET', '/readyz')).status === 200, 20_000, '/readyz to recover');
    expect((await call(server, 'GET', '/api/v1/products', { token: host.key })).status).toBe(200);
  });

  it('answers a sync stuck inside its transaction within the statement bound, without waiting again for a ROLLBACK', async () => {
    // The database stops answering just as the sync's transaction begins (its first round trip opens with BEGIN, sent
    // as text every time; the statements after it may be prepared on the connection, and then travel as EXECUTE).
    const stuck = proxy.cutAt('BEGIN', 'stall');
    const answer = await sync(server, host.key, [product('kept-1'), product('stuck')]);
    await stuck;
    // A ROLLBACK sent on the connection that timed out would have waited out the timeouts again.
    const sent = proxy.withheld();
    proxy.heal();
    expectUnavailable(answer);
    expect(answer.body.detail).toContain('nothing was changed');
    expect(sent).toContain('BEGIN');
    expect(sent).not.toContain('ROLLBACK');
    await until(async () => (await call(server, 'GET', '/readyz')).status === 200, 20_000, '/readyz to recover');
  });

  it('never answered 500 to the reader polling throughout, and the process stayed up', async () => {
    // A read sent into the stall waits out its timeout (503); the ones after it succeed. Three in a row: one success
    // alone has been followed by one more 503 (seen once in CI), which is still not a 500.
    await until(
      async () => seen.length >= 3 && seen.slice(-3).every((status) => status === 200),
      15_000,
      'the reader to succeed again',
    );
    reading = false;
    await reader;
    expect(seen.length).toBeGreaterThan(5);
    expect(new Set(seen.filter((status) => status !== 200 && status !== 503))).toEqual(new Set());
    expect(seen).toContain(503);
    expect(server.process().exitCode).toBeNull();
    expect(server.output()).not.toMatch(/"level":(50|60)/);
  });
});
