// `hostdir push` completes a catalogue across a server crash: the killed process's Idempotency-Key claim is free
// again seconds later (its heartbeat stops), so push's retries, with the same key, get the catalogue applied once.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboard, product, type Onboarded } from '../support/api.js';
import { CLI, startServer, type TestServer } from '../support/server.js';
import { until } from '../support/until.js';

const SIZE = 20_000;

describe('hostdir push across a server crash (PostgreSQL)', () => {
  let server: TestServer;
  let host: Onboarded;
  let watcher: pg.Client;
  let dir: string;

  beforeAll(async () => {
    server = await startServer('postgres', { env: { LOG_LEVEL: 'warn' } });
    host = await onboard(server, 'Crash Pusher');
    watcher = new pg.Client({ connectionString: server.databaseUrl! });
    await watcher.connect();
    dir = await mkdtemp(path.join(tmpdir(), 'hostdir-push-crash-'));
  });

  afterAll(async () => {
    await watcher?.end();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('retries with the same key until the restarted server applies the catalogue, exactly once', async () => {
    const file = path.join(dir, 'catalogue.json');
    await writeFile(file, JSON.stringify({ products: Array.from({ length: SIZE }, (_, i) => product(`c-${i}`)) }));
    const push = new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [CLI, 'push', file, '--key', host.key, '--url', server.url],
        { env: { PATH: process.env.PATH ?? '' }, timeout: 120_000 },
        (error, _stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr }),
      );
    });
    // Killed while its sync holds the Idempotency-Key.
    await until(
      async () => (await watcher.query(`SELECT 1 FROM idempotency_keys WHERE status = 'running'`)).rows.length > 0,
      60_000,
      'the push to claim its key',
    );
    await server.kill('SIGKILL');
    await server.restart();

    const { code, stderr } = await push;
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/retrying in \d+ s with the same Idempotency-Key/);
    const [counts] = (
      await watcher.query(
        `SELECT (SELECT count(*)::int FROM products p WHERE p.host_id = h.id AND p.status = 'active') AS active,
                (SELECT count(*)::int FROM sync_runs r WHERE r.host_id = h.id AND NOT r.dry_run) AS applied
         FROM hosts h WHERE h.slug = $1`,
        [host.slug],
      )
    ).rows;
    expect(counts).toEqual({ active: SIZE, applied: 1 });
  });
});
