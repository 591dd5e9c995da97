// hostdir behind PgBouncer in transaction mode, as docs/operations.md configures it: three processes started at the same
// moment on an empty database through PgBouncer (no MIGRATION_DATABASE_URL), sharing fewer server connections
// than they open, run the contract's flows — small and large syncs, Idempotency-Key retries, concurrent syncs of
// one host spread over the three, the provider's and the public reads.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Answer } from '../support/api.js';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { createTestDatabase, startServer, type TestServer } from '../support/server.js';

/** Server connections PgBouncer keeps to PostgreSQL: fewer than the three processes' 3 × DB_POOL_SIZE clients. */
const SERVER_CONNECTIONS = 4;
const ENV = { DB_POOL_SIZE: '6', LOG_LEVEL: 'warn' };
/** Starts of three processes at once on a fresh database; PGBOUNCER_START_TRIALS=40 runs more of them. */
const START_TRIALS = Number(process.env.PGBOUNCER_START_TRIALS ?? 3);

async function startThree(databaseUrl: string): Promise<TestServer[]> {
  const started = await Promise.allSettled([0, 1, 2].map(() => startServer('postgres', { databaseUrl, env: ENV })));
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []));
  if (failed.length > 0) {
    await Promise.all(servers.map((server) => server.kill()));
    throw new Error(`${failed.length} of 3 processes failed to start:\n${failed.join('\n')}`);
  }
  return servers;
}

/** Every process ready (migrations done) within the deadline, and every migration recorded exactly once. */
async function expectMigratedOnce(servers: TestServer[], databaseUrl: string): Promise<void> {
  for (const server of servers) {
    const deadline = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < deadline && (status = (await fetch(`${server.url}/readyz`)).status) !== 200) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status, server.output()).toBe(200);
    expect(server.process().exitCode, server.output()).toBeNull();
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string; n: number }>(
      'SELECT version::text, count(*)::int AS n FROM schema_migrations WHERE version > 0 GROUP BY version',
    );
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) expect(row, `migration ${row.version}`).toMatchObject({ n: 1 });
  } finally {
    await client.end();
  }
}

describe('through PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  let database: { url: string; drop(): Promise<void> };
  let servers: TestServer[] = [];

  beforeAll(async () => {
    bouncer = await startPgBouncer({ poolSize: SERVER_CONNECTIONS });
    database = await createTestDatabase();
    servers = await startThree(bouncer.urlFor(database.url));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
    await bouncer?.stop();
  });

  it('started three processes at once on an empty database: each migration applied once, all three ready', async () => {
    await expectMigratedOnce(servers, database.url);
  });

  it(
    `starts three processes at once safely, ${START_TRIALS} times over, through PgBouncer and directly`,
    { timeout: 60_000 + START_TRIALS * 30_000 },
    async () => {
      for (let trial = 0; trial < START_TRIALS + 1; trial++) {
        const fresh = await createTestDatabase();
        // The last trial connects directly: the same lock works without PgBouncer.
        const url = trial < START_TRIALS ? bouncer.urlFor(fresh.url) : fresh.url;
        try {
          const three = await startThree(url);
          try {
            await expectMigratedOnce(three, fresh.url);
          } finally {
            await Promise.all(three.map((server) => server.kill()));
          }
        } finally {
          await fresh.drop();
        }
      }
    },
  );

  it('runs in transaction mode, the three processes sharing fewer server connections than they hold', async () => {
    const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${bouncer.port}/pgbouncer` });
    await admin.connect();
    try {
      // Every process opens connections for its reads and its heartbeat; a burst makes sure each pool is in use.
      const host = await onboard(servers[0]!, 'Pool Hosting');
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => call(servers[i % 3]!, 'GET', '/api/v1/products', { token: host.key })),
      );
      const config = (await admin.query('SHOW CONFIG')).rows as Array<{ key: string; value: string }>;
      expect(config.find((row) => row.key === 'pool_mode')?.value).toBe('transaction');
      const name = new URL(database.url).pathname.slice(1);
      const clients = (await admin.query('SHOW CLIENTS')).rows.filter((row) => row.database === name);
      const serverConnections = (await admin.query('SHOW SERVERS')).rows.filter((row) => row.database === name);
      expect(clients.length).toBeGreaterThan(SERVER_CONNECTIONS);
      expect(serverConnections.length).toBeLessThanOrEqual(SERVER_CONNECTIONS);
    } finally {
      await admin.end();
    }
  });

  const catalogue = (tag: string, n = 20) =>
    Array.from({ length: n }, (_, i) => product(`${tag}-${i}`, { price: i + 1 }));

  it('applies a small sync and a large one (COPY) through the pooler, and reads them back', async () => {
    const small = await onboard(servers[0]!, 'Small Hosting');
    const first = await sync(servers[0]!, small.key, catalogue('s'));
    expect(first.status).toBe(200);
    expect(first.body.summary).toMatchObject({ received: 20, created: 20 });

    const large = await onboard(servers[1]!, 'Large Hosting');
    const answer = await sync(servers[1]!, large.key, catalogue('l', 5_000));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.summary).toMatchObject({ received: 5_000, created: 5_000 });

    // Read through another process: the provider's listing, history and the public directory.
    const listing = await call(servers[2]!, 'GET', '/api/v1/products?limit=1000', { token: large.key });
    expect(listing.body.products).toHaveLength(1000);
    expect(listing.body.next_cursor).toEqual(expect.any(String));
    const runs = await call(servers[2]!, 'GET', '/api/v1/sync/runs', { token: large.key });
    expect(runs.body.runs.map((run: { sync_id: string }) => run.sync_id)).toEqual([answer.body.sync_id]);
    const run = await call(servers[0]!, 'GET', `/api/v1/sync/runs/${answer.body.sync_id}`, { token: large.key });
    expect(run.status).toBe(200);
    const search = await call(
      servers[2]!,
      'GET',
      '/api/v1/directory/products?host=large-hosting&sort=price&order=desc&limit=3',
    );
    expect(search.body.products.map((p: { price: number }) => p.price)).toEqual([5000, 4999, 4998]);
    const shown = await call(servers[1]!, 'GET', `/api/v1/directory/products/${search.body.products[0].id}`);
    expect(shown.body.product.name).toBe('Cloud VPS l-4999');
    const page = await fetch(`${servers[0]!.url}/hosts/small-hosting`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Cloud VPS s-19');
    const counted = await servers[0]!.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM products p JOIN hosts h ON h.id = p.host_id WHERE h.slug = 'large-hosting' AND p.status = 'active'`,
    );
    expect(counted[0]!.n).toBe(5_000);
  });

  it('answers an Idempotency-Key retry with the first answer, on any process, and refuses another body under it', async () => {
    const host = await onboard(servers[0]!, 'Retry Hosting');
    const body = { products: catalogue('r', 5) };
    const keyed = (server: TestServer, json: unknown): Promise<Answer> =>
      call(server, 'POST', '/api/v1/sync/products', {
        token: host.key,
        json,
        headers: { 'idempotency-key': 'retry-1' },
      });
    const first = await keyed(servers[0]!, body);
    expect(first.status).toBe(200);
    const replayed = await keyed(servers[1]!, body);
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.sync_id).toBe(first.body.sync_id);
    const other = await keyed(servers[2]!, { products: catalogue('other', 5) });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const stored = await servers[0]!.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM idempotency_keys k JOIN hosts h ON h.id = k.host_id WHERE h.slug = 'retry-hosting' AND k.key = $1`,
      [createHash('sha256').update('retry-1').digest('hex')],
    );
    expect(stored[0]!.n).toBe(1);
    const runs = await call(servers[1]!, 'GET', '/api/v1/sync/runs', { token: host.key });
    expect(runs.body.runs).toHaveLength(1);
  });

  function expectOneApplied(answers: Answer[]): void {
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 429)).toHaveLength(answers.length - 1);
  }

  it('applies exactly one of 30 simultaneous syncs of one host spread over the three processes', async () => {
    const host = await onboard(servers[0]!, 'Race Hosting');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => sync(servers[i % 3]!, host.key, catalogue(`race-${i}`))),
    );
    expectOneApplied(answers);
    const winner = answers.find((answer) => answer.status === 200)!;
    const listed = await call(servers[1]!, 'GET', '/api/v1/products?limit=100', { token: host.key });
    expect(listed.body.products.map((p: { external_id: string }) => p.external_id).sort()).toEqual(
      winner.body.products.map((p: { external_id: string }) => p.external_id).sort(),
    );
  });

  it("stops a directory read at its time limit through the pooler too (SET LOCAL, in the read's transaction), and answers the next", async () => {
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      const search = () => call(servers[0]!, 'GET', '/api/v1/directory/products?q=cloud&limit=3');
      expect((await search()).status).toBe(200);
      // The rates' version, which a search reads beside its products, held by another session: the search waits on it.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE exchange_rates_version IN ACCESS EXCLUSIVE MODE');
      const stopped = await search();
      expect(stopped.status, stopped.text).toBe(503);
      expect(stopped.body).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        detail: expect.stringMatching(/took longer than the 2 s the directory gives a read/),
      });
      await locker.query('ROLLBACK');
      const again = await search();
      expect(again.status).toBe(200);
      expect(again.body.products).toHaveLength(3);
    } finally {
      await locker.end();
    }
  });

  it('applies each of 10 hosts exactly once when each sends 3 syncs at once to the three processes', async () => {
    const hosts = await Promise.all(
      Array.from({ length: 10 }, (_, h) => onboard(servers[h % 3]!, `Crowd Hosting ${h}`)),
    );
    const answers = await Promise.all(
      hosts.flatMap((host, h) =>
        [0, 1, 2].map((j) =>
          sync(servers[(h + j) % 3]!, host.key, catalogue(`crowd-${h}-${j}`)).then((answer) => ({ h, answer })),
        ),
      ),
    );
    for (let h = 0; h < hosts.length; h++)
      expectOneApplied(answers.filter((entry) => entry.h === h).map((entry) => entry.answer));
  });
});
