// /readyz while PostgreSQL stalls (a proxy between the server and the database keeps the connections open and forwards
// nothing): it answers 503 with Retry-After within a load balancer's check timeout, the one already in flight when
// the stall began as well as the ones after, and 200 again once the database answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Answer } from '../support/api.js';
import type { TestServer } from '../support/server.js';
import { startServerBehindProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/until.js';

/**
 * The bound the readiness probe keeps, as a load balancer's health check sees it: 1 s (the probe waits at most
 * 750 ms for the database) plus a margin for two shared cores. Before it, a /readyz waited on the stalled database for
 * the pool's own bounds: 5 s for a connection, the statement timeout + 5 s for a query.
 */
const CHECK_TIMEOUT_MS = 1_500;

async function timedReadyz(server: TestServer): Promise<{ answer: Answer; elapsedMs: number }> {
  const started = Date.now();
  const answer = await call(server, 'GET', '/readyz');
  return { answer, elapsedMs: Date.now() - started };
}

function expectSilentWithin({ answer, elapsedMs }: { answer: Answer; elapsedMs: number }): void {
  expect(answer.status, answer.text).toBe(503);
  expect(answer.body.code).toBe('SERVICE_UNAVAILABLE');
  expect(answer.body.detail).toMatch(/^the database has not answered for \d+ ms$/);
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(elapsedMs).toBeLessThan(CHECK_TIMEOUT_MS);
}

describe('/readyz while the database link stalls', () => {
  let stop: () => Promise<void>;
  let proxy: TcpProxy;
  let server: TestServer;

  beforeAll(async () => {
    ({ server, proxy, stop } = await startServerBehindProxy({ DB_POOL_SIZE: '4', LOG_LEVEL: 'warn' }));
  });

  afterAll(async () => {
    await stop?.();
  });

  it('answers 503 with Retry-After within the check timeout, in flight or new, and 200 once the database answers', async () => {
    expect((await call(server, 'GET', '/readyz')).status).toBe(200);

    // The health query is dropped on its way, and from then on nothing is forwarded either way.
    const stalled = proxy.cutAt('SELECT 1 AS ready', 'stall');
    const inFlight = timedReadyz(server);
    await stalled;
    expectSilentWithin(await inFlight);

    // New checks, one after another and several at once, while the health query is still out.
    for (let k = 0; k < 4; k++) {
      expectSilentWithin(await timedReadyz(server));
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const check of await Promise.all(Array.from({ length: 6 }, () => timedReadyz(server))))
      expectSilentWithin(check);
    expect((await call(server, 'GET', '/healthz')).status).toBe(200);

    // The dropped query is given up after its own bound (3 s), not the statement timeout (30 s by default, + 5 s),
    // and the next one is answered.
    proxy.heal();
    await until(
      async () => (await call(server, 'GET', '/readyz')).status === 200,
      10_000,
      '/readyz to answer 200 again',
    );
    expect((await call(server, 'GET', '/readyz')).body).toEqual({ status: 'ready', store: 'postgres' });
    expect(server.process().exitCode).toBeNull();
    expect(server.output()).not.toMatch(/unhandled|"level":(50|60)/i);
  }, 60_000);
});
