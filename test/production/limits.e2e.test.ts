// Bounds that keep a stuck database or a flood from piling up requests: the host lock wait (LOCK_TIMEOUT_MS)
// and the sync slots of a process (SYNC_CONCURRENCY, SYNC_QUEUE_LIMIT).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboard, product, sync } from '../support/api.js';
import { startInProcessServer, type ServerUnderTest } from '../support/server.js';

describe('lock wait and sync slots (PostgreSQL)', () => {
  let server: ServerUnderTest;
  let locker: pg.Client;

  beforeAll(async () => {
    server = await startInProcessServer('postgres', {
      env: { SYNC_CONCURRENCY: '1', DB_POOL_SIZE: '4', LOG_LEVEL: 'warn' },
      config: { lockTimeoutMs: 700, syncQueueLimit: 0 },
    });
    locker = new pg.Client({ connectionString: server.databaseUrl! });
    await locker.connect();
  });

  afterAll(async () => {
    await locker?.end();
    await server?.stop();
  });

  /** Holds the host's row lock the way a long sync of that host would, until release() */
  async function holdHost(slug: string): Promise<{ release(): Promise<void> }> {
    await locker.query('BEGIN');
    await locker.query('SELECT 1 FROM hosts WHERE slug = $1 FOR UPDATE', [slug]);
    return { release: async () => void (await locker.query('ROLLBACK')) };
  }

  it('answers 429 with Retry-After when another sync holds the host longer than LOCK_TIMEOUT_MS', async () => {
    const host = await onboard(server, 'Locked Hosting');
    const held = await holdHost(host.slug);
    const started = Date.now();
    const answer = await sync(server, host.key, [product('l-1')]);
    const waited = Date.now() - started;
    await held.release();

    expect(answer.status, answer.text).toBe(429);
    expect(answer.body.code).toBe('RATE_LIMITED');
    expect(answer.body.detail).toMatch(/another sync of this host is still being applied/);
    expect(answer.headers.get('retry-after')).toBe('1');
    // It waited for the lock as long as LOCK_TIMEOUT_MS (700 ms) allows, and gave up while the lock was still held.
    expect(waited).toBeGreaterThanOrEqual(600);
    // Nothing was taken: the window is still free.
    expect((await sync(server, host.key, [product('l-1')])).status).toBe(200);
  });

  it('answers 503 to a sync that finds every slot taken and the queue full, and serves it once one frees', async () => {
    const blocked = await onboard(server, 'Blocked Hosting');
    const other = await onboard(server, 'Other Hosting');
    const held = await holdHost(blocked.slug);
    // Takes the only slot and waits on the lock.
    const first = sync(server, blocked.key, [product('b-1')]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const turnedAway = await sync(server, other.key, [product('o-1')]);
    expect(turnedAway.status, turnedAway.text).toBe(503);
    expect(turnedAway.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(turnedAway.body.detail).toMatch(/too many syncs are waiting/);
    expect(Number(turnedAway.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    await held.release();
    // It got the slot, so it ran: applied, or turned away by the lock wait if the machine was slow.
    expect([200, 429]).toContain((await first).status);
    expect((await sync(server, other.key, [product('o-1')])).status).toBe(200);
  });
});
