// The public directory reads from streaming replicas (DATABASE_READ_URL); providers, the admin API and syncs stay
// on the primary. Against a real primary and hot standby that the test makes itself (initdb, pg_basebackup): a
// replica whose replay is paused is left out once it lags more than REPLICA_MAX_LAG_SECONDS, a standby stopped
// in the middle of a stream of reads costs no read, and both come back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { startReplication, type Replication } from '../support/postgres-cluster.js';
import { freePort, startServer, type TestServer } from '../support/server.js';
import { until } from '../support/until.js';

const MAX_LAG_SECONDS = 4;

/** The value of one series of the server's /metrics, or null when it is absent. */
async function metric(server: TestServer, series: string): Promise<number | null> {
  const text = (await call(server, 'GET', '/metrics')).text;
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : null;
}

const servedBy = (server: TestServer, where: 'primary' | 'replica') =>
  metric(server, `hostdir_directory_queries_total{served_by="${where}"}`).then((value) => value ?? 0);

describe('read replicas (a primary and a streaming standby of the test’s own)', () => {
  let replication: Replication;
  let server: TestServer;
  let host: Onboarded;

  beforeAll(async () => {
    replication = await startReplication();
    await replication.primary.sql('CREATE DATABASE hostdir');
    // The second replica never answers: one or more URLs, and a dead one is skipped.
    const nowhere = `postgres://postgres@127.0.0.1:${await freePort()}/hostdir`;
    server = await startServer('postgres', {
      databaseUrl: replication.primary.url('hostdir'),
      env: {
        DATABASE_READ_URL: `${replication.standby.url('hostdir')}, ${nowhere}`,
        REPLICA_MAX_LAG_SECONDS: String(MAX_LAG_SECONDS),
        SYNC_MAX_PER_WINDOW: '100',
        DB_POOL_SIZE: '4',
      },
    });
    host = await onboard(server, 'Replica Hosting');
    expect((await sync(server, host.key, [product('vps-1', { name: 'Before' }), product('vps-2')])).status).toBe(200);
  });

  afterAll(async () => {
    await server?.stop();
    await replication?.destroy();
  });

  const directoryName = async () => {
    const answer = await call(server, 'GET', '/api/v1/directory/products?host=replica-hosting&sort=name');
    expect(answer.status).toBe(200);
    return answer.body.products.map((p: { name: string }) => p.name).sort()[0] as string;
  };

  it('reads the directory from the replica, and leaves the unreachable one out', async () => {
    await until(
      async () => (await metric(server, 'hostdir_replica_usable{replica="1"}')) === 1,
      20_000,
      'replica 1 in use',
    );
    expect(await metric(server, 'hostdir_replica_usable{replica="2"}')).toBe(0);
    expect(await metric(server, 'hostdir_replica_lag_seconds{replica="2"}')).toBeNull();
    const before = { replica: await servedBy(server, 'replica'), primary: await servedBy(server, 'primary') };
    await until(async () => (await directoryName()) === 'Before', 10_000, 'the synced products on the replica');
    const page = await fetch(`${server.url}/hosts/replica-hosting`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Before');
    expect(await servedBy(server, 'replica')).toBeGreaterThan(before.replica);
    expect(await servedBy(server, 'primary')).toBe(before.primary);
    const lag = await metric(server, 'hostdir_replica_lag_seconds{replica="1"}');
    expect(lag).not.toBeNull();
    expect(lag!).toBeLessThanOrEqual(MAX_LAG_SECONDS);
  });

  it('serves a stale replica only up to REPLICA_MAX_LAG_SECONDS; providers and the admin API read their writes at once', async () => {
    await replication.standby.sql('SELECT pg_wal_replay_pause()', [], 'hostdir');
    try {
      const synced = await sync(server, host.key, [product('vps-1', { name: 'After' }), product('vps-2')]);
      expect(synced.status).toBe(200);
      // The directory still reads the paused replica, which has not replayed the sync.
      expect(await directoryName()).toBe('Before');

      // The provider's own listing and history, and the admin API, come from the primary.
      const own = await call(server, 'GET', '/api/v1/products', { token: host.key });
      expect(own.body.products.map((p: { name: string }) => p.name)).toContain('After');
      const runs = await call(server, 'GET', '/api/v1/sync/runs', { token: host.key });
      expect(runs.body.runs[0].sync_id).toBe(synced.body.sync_id);
      const shown = await admin(server, 'GET', `/hosts/${host.slug}`);
      expect(shown.status).toBe(200);

      // Once the replica lags more than the limit, the primary answers, with the sync.
      await until(
        async () => (await directoryName()) === 'After',
        (MAX_LAG_SECONDS + 10) * 1000,
        'the primary to answer the directory',
      );
      expect(await metric(server, 'hostdir_replica_usable{replica="1"}')).toBe(0);
      expect(await metric(server, 'hostdir_replica_lag_seconds{replica="1"}')).toBeGreaterThan(MAX_LAG_SECONDS);
      expect(server.output()).toContain(`lags more than ${MAX_LAG_SECONDS} s behind the primary`);
    } finally {
      await replication.standby.sql('SELECT pg_wal_replay_resume()', [], 'hostdir');
    }
    // Replay resumed: the replica catches up and is read again.
    await until(
      async () => (await metric(server, 'hostdir_replica_usable{replica="1"}')) === 1,
      20_000,
      'replica 1 in use again',
    );
    const before = await servedBy(server, 'replica');
    expect(await directoryName()).toBe('After');
    expect(await servedBy(server, 'replica')).toBeGreaterThan(before);
  });

  it('answers every read while the standby is stopped in the middle of them, and uses it again once it is back', async () => {
    await until(
      async () => (await metric(server, 'hostdir_replica_usable{replica="1"}')) === 1,
      20_000,
      'replica 1 in use',
    );
    const statuses: number[] = [];
    const names = new Set<string>();
    let reading = true;
    const reader = async () => {
      while (reading) {
        const answer = await call(server, 'GET', '/api/v1/directory/products?host=replica-hosting');
        statuses.push(answer.status);
        for (const listed of answer.body?.products ?? []) names.add(listed.name);
        const page = await fetch(`${server.url}/products/${answer.body?.products?.[0]?.id}`);
        statuses.push(page.status);
        await page.arrayBuffer();
      }
    };
    const readers = Array.from({ length: 4 }, reader);
    await until(() => statuses.length >= 20, 20_000, 'reads before the stop');
    await replication.standby.stop('immediate');
    const stoppedAt = statuses.length;
    await until(() => statuses.length >= stoppedAt + 40, 30_000, 'reads after the stop');
    reading = false;
    await Promise.all(readers);

    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect([...names].sort()).toEqual(['After', 'Cloud VPS vps-2']);
    expect(await metric(server, 'hostdir_replica_usable{replica="1"}')).toBe(0);
    expect(server.output()).toMatch(/reads from the primary instead of replica 1: (a query failed|it is unreachable)/);

    await replication.standby.start();
    await until(
      async () => (await metric(server, 'hostdir_replica_usable{replica="1"}')) === 1,
      30_000,
      'replica 1 in use after its restart',
    );
    expect(server.output()).toContain('the directory reads from replica 1 again');
    const before = await servedBy(server, 'replica');
    expect(await directoryName()).toBe('After');
    expect(await servedBy(server, 'replica')).toBeGreaterThan(before);
  });
});
