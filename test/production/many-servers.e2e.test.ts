// Several server processes on one PostgreSQL database: the rate limit and the per-host serialization hold
// across processes, because both live in the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboard, product, sync, type Answer } from '../support/api.js';
import { createTestDatabase, startServer, type TestServer } from '../support/server.js';

describe('three servers on one database', () => {
  let database: { url: string; drop(): Promise<void> };
  const servers: TestServer[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    // Started one after the other: the first runs the migrations, the others find them done.
    const env = { DB_POOL_SIZE: '6', LOG_LEVEL: 'warn' };
    servers.push(await startServer('postgres', { databaseUrl: database.url, env }));
    servers.push(...(await Promise.all([1, 2].map(() => startServer('postgres', { databaseUrl: database.url, env })))));
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
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
        [0, 1, 2].map((j) => sync(servers[(h + j) % 3]!, host.key, catalogue(`crowd-${h}-${j}`)).then((answer) => ({ h, answer }))),
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
