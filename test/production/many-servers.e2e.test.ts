// Several server processes on one PostgreSQL database: the rate limit and the per-host serialization hold
// across processes, because both live in the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Answer } from '../support/api.js';
import { createTestDatabase, freePort, startServer, type TestServer } from '../support/server.js';

describe('three servers on one database', () => {
  let database: { url: string; drop(): Promise<void> };
  const servers: TestServer[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    // Started at the same moment on an empty database: the migration lock lets one migrate, the others wait.
    // The third migrates over its own connection (MIGRATION_DATABASE_URL, for a DATABASE_URL through PgBouncer).
    const env = { DB_POOL_SIZE: '6', LOG_LEVEL: 'warn' };
    servers.push(
      ...(await Promise.all([
        startServer('postgres', { databaseUrl: database.url, env }),
        startServer('postgres', { databaseUrl: database.url, env }),
        startServer('postgres', { databaseUrl: database.url, env: { ...env, MIGRATION_DATABASE_URL: database.url } }),
      ])),
    );
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
  });

  it('migrated the schema once although they started together', async () => {
    const applied = await servers[0]!.sql<{ version: string; n: number }>(
      'SELECT version::text, count(*)::int AS n FROM schema_migrations GROUP BY version ORDER BY version',
    );
    expect(applied.length).toBeGreaterThanOrEqual(1);
    for (const row of applied) expect(row.n).toBe(1);
  });

  it('starts unready, saying why, when MIGRATION_DATABASE_URL cannot be reached', async () => {
    const port = await freePort();
    const unready = await startServer('postgres', {
      databaseUrl: database.url,
      env: { MIGRATION_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/nowhere` },
    });
    try {
      expect((await call(unready, 'GET', '/healthz')).status).toBe(200);
      expect((await call(unready, 'GET', '/readyz')).status).toBe(503);
      expect(unready.output()).toContain('the database (MIGRATION_DATABASE_URL or DATABASE_URL) is not reachable');
      expect(unready.output()).toContain('ECONNREFUSED');
    } finally {
      await unready.kill();
    }
  });

  const catalogue = (tag: string) => Array.from({ length: 20 }, (_, i) => product(`${tag}-${i}`, { price: i + 1 }));

  function expectOneApplied(answers: Answer[]): void {
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 429)).toHaveLength(answers.length - 1);
    for (const answer of answers.filter((a) => a.status === 429)) {
      expect(answer.body.code).toBe('RATE_LIMITED');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  }

  it('applies exactly one of 30 simultaneous syncs of one host spread over the three', async () => {
    const host = await onboard(servers[0]!, 'Race Hosting');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => sync(servers[i % 3]!, host.key, catalogue(`race-${i}`))),
    );
    expectOneApplied(answers);

    const winner = answers.find((answer) => answer.status === 200)!;
    const runs = await servers[1]!.sql<{ id: string }>(
      `SELECT r.id FROM sync_runs r JOIN hosts h ON h.id = r.host_id WHERE h.slug = $1 AND NOT r.dry_run`,
      [host.slug],
    );
    expect(runs.map((run) => run.id)).toEqual([winner.body.sync_id]);
    // The listing is exactly the winner's catalogue, not a mix of several.
    const listed = await servers[2]!.sql<{ external_id: string }>(
      `SELECT p.external_id FROM products p JOIN hosts h ON h.id = p.host_id WHERE h.slug = $1 ORDER BY p.external_id`,
      [host.slug],
    );
    const expected = (winner.body.products as Array<{ external_id: string }>).map((p) => p.external_id).sort();
    expect(listed.map((row) => row.external_id)).toEqual(expected);
  });

  it('applies each of 10 hosts exactly once when each sends 3 syncs at once to different servers', async () => {
    const hosts = [];
    for (let i = 0; i < 10; i++) hosts.push(await onboard(servers[i % 3]!, `Crowd Hosting ${i}`));
    const answers = await Promise.all(
      hosts.flatMap((host, h) =>
        [0, 1, 2].map((j) =>
          sync(servers[(h + j) % 3]!, host.key, catalogue(`crowd-${h}-${j}`)).then((answer) => ({ h, answer })),
        ),
      ),
    );
    for (let h = 0; h < hosts.length; h++) {
      expectOneApplied(answers.filter((entry) => entry.h === h).map((entry) => entry.answer));
    }
    const perHost = await servers[0]!.sql<{ slug: string; applied: number }>(
      `SELECT h.slug, count(r.id)::int AS applied FROM hosts h LEFT JOIN sync_runs r ON r.host_id = h.id AND NOT r.dry_run
       WHERE h.slug LIKE 'crowd-hosting-%' GROUP BY h.slug`,
    );
    expect(perHost).toHaveLength(10);
    for (const row of perHost) expect(row.applied).toBe(1);
  });
});
