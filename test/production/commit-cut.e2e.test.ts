// The connection to PostgreSQL lost while a sync's COMMIT is on its way: the answer says what the database holds
// afterwards. Applied → 200 with the run; certainly not applied → 503 "nothing was changed"; not found out in
// time → 503 that says the outcome is unknown, with the sync_id and how to learn it. Never a claim the database
// contradicts.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Onboarded } from '../support/api.js';
import type { TestServer } from '../support/server.js';
import { startServerBehindProxy, type TcpProxy } from '../support/tcp-proxy.js';

describe('a connection lost during COMMIT (PostgreSQL)', () => {
  let stop: () => Promise<void>;
  let proxy: TcpProxy;
  let server: TestServer;
  let direct: pg.Client;
  let host: Onboarded;

  const runs = async (): Promise<string[]> =>
    (
      await direct.query<{ id: string }>(
        `SELECT r.id FROM sync_runs r JOIN hosts h ON h.id = r.host_id WHERE h.slug = $1 AND NOT r.dry_run ORDER BY r.id`,
        [host.slug],
      )
    ).rows.map((row) => row.id);
  const active = async (): Promise<string[]> =>
    (await call(server, 'GET', '/api/v1/products?limit=1000', { token: host.key })).body.products
      .map((p: { external_id: string }) => p.external_id)
      .sort();

  beforeAll(async () => {
    ({ server, proxy, direct, stop } = await startServerBehindProxy({
      DB_POOL_SIZE: '4',
      STATEMENT_TIMEOUT_MS: '3000',
      SYNC_MAX_PER_WINDOW: '100',
      LOG_LEVEL: 'warn',
    }));
    host = await onboard(server, 'Commit Cut Hosting');
    expect((await sync(server, host.key, [product('a')])).status).toBe(200);
  });

  afterAll(async () => {
    await stop?.();
  });

  it('answers 200 with the run when the COMMIT went through and only its answer was lost', async () => {
    const before = await runs();
    const cut = proxy.cutAt('COMMIT', 'after-reply');
    const answer = await sync(server, host.key, [product('a'), product('b')]);
    await cut;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.summary).toMatchObject({ received: 2, created: 1, unchanged: 1 });
    const after = await runs();
    expect(after).toEqual([...before, answer.body.sync_id].sort());
    expect(await active()).toEqual(['a', 'b']);
    // The run as history shows it is the answer given.
    const recorded = await call(server, 'GET', `/api/v1/sync/runs/${answer.body.sync_id}`, { token: host.key });
    expect(recorded.body.summary).toEqual(answer.body.summary);
  });

  it('answers 503 "nothing was changed" when the COMMIT never reached the database', async () => {
    const before = await runs();
    const cut = proxy.cutAt('COMMIT', 'before');
    const answer = await sync(server, host.key, [product('a'), product('b'), product('c')]);
    await cut;
    expect(answer.status, answer.text).toBe(503);
    expect(answer.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(answer.body.detail).toContain('nothing was changed');
    expect(await runs()).toEqual(before);
    expect(await active()).toEqual(['a', 'b']);
  });

  it('answers 503 saying the outcome is unknown, with the sync_id, when the database cannot be asked in time', async () => {
    const before = await runs();
    const cut = proxy.cutAt('COMMIT', 'after-reply');
    const pending = sync(server, host.key, [product('a'), product('b'), product('d')]);
    await cut;
    // Every other connection stalls until the answer is given: the run cannot be looked for.
    proxy.stall();
    const answer = await pending;
    proxy.heal();
    expect(answer.status, answer.text).toBe(503);
    expect(answer.body).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      outcome: 'unknown',
      sync_id: expect.stringMatching(/^syn_/),
    });
    expect(answer.body.detail).not.toContain('nothing was changed');
    expect(answer.body.detail).toContain('Idempotency-Key');
    // What the database holds is what a client then learns from history: here, applied.
    const after = await runs();
    expect(after).toEqual([...before, answer.body.sync_id].sort());
    await new Promise((resolve) => setTimeout(resolve, 500));
    const learned = await call(server, 'GET', `/api/v1/sync/runs/${answer.body.sync_id}`, { token: host.key });
    expect(learned.status).toBe(200);
  }, 60_000);
});
