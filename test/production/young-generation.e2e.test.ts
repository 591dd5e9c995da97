// The embedded server keeps V8's young generation at its starting size (heap-flags.ts), which loading the server and
// a large sync would otherwise double up to 32 MB; a server started with a semi-space flag of its own keeps that
// flag instead. Read from /metrics.
import { afterAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync } from '../support/api.js';
import { MAIN, startServer, type TestServer } from '../support/server.js';

const MiB = 1024 * 1024;

/** The young generation's size (both semi-spaces), as /metrics shows it. */
async function newSpace(server: TestServer): Promise<number> {
  const metrics = await call(server, 'GET', '/metrics');
  const line = metrics.text.split('\n').find((l) => l.startsWith('nodejs_heap_space_size_total_bytes{space="new"} '));
  expect(line, 'the new space in /metrics').toBeDefined();
  return Number(line!.split(' ')[1]);
}

/** The young generation's size when the server has started, and after a sync of a few thousand products. */
async function newSpaceAcrossLargeSync(server: TestServer): Promise<{ started: number; synced: number }> {
  const started = await newSpace(server);
  const host = await onboard(server, 'Young Generation Hosting');
  const products = Array.from({ length: 4000 }, (_, k) => product(`yg-${k}`, { description: `Plan ${k} `.repeat(20) }));
  const answer = await sync(server, host.key, products);
  expect(answer.status).toBe(200);
  expect(answer.body.summary.created).toBe(4000);
  const synced = await newSpace(server);
  return { started, synced };
}

describe('the embedded server’s young generation', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('does not grow through a large sync, where one started with V8’s own growth factor does', async () => {
    const [kept, grown] = await Promise.all([
      startServer('embedded'),
      startServer('embedded', { args: ['--semi-space-growth-factor=2', MAIN] }),
    ]);
    servers.push(kept, grown);
    const own = await newSpaceAcrossLargeSync(grown);
    const ours = await newSpaceAcrossLargeSync(kept);
    expect(ours.synced).toBeLessThanOrEqual(ours.started);
    // V8 grows it to two semi-spaces of 16 MB on a 64-bit machine (8 at least), already while the server's modules
    // load; kept, it stays at two of 1 MB (4 MB allowed: one doubling before the flag applies).
    expect(own.started).toBeGreaterThan(ours.synced);
    expect(own.synced).toBeGreaterThanOrEqual(16 * MiB);
    expect(ours.synced).toBeLessThanOrEqual(4 * MiB);
  });

  it('grows as V8 would on PostgreSQL, whose server holds no database of its own', async () => {
    const server = await startServer('postgres');
    servers.push(server);
    const { synced } = await newSpaceAcrossLargeSync(server);
    expect(synced).toBeGreaterThan(4 * MiB);
  });
});
