// SIGTERM while a sync runs: it completes within SHUTDOWN_TIMEOUT_MS (or, past the deadline, is rolled back
// whole), later requests get 503 or a refused connection, and the process exits 0.
import http from 'node:http';
import { connect } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { onboard, product, sync, type Onboarded } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';
import { until } from '../support/until.js';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request through a given agent, so that a test controls which connection it travels on. */
function request(server: TestServer, agent: http.Agent, path: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${server.url}${path}`, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

async function transactionOpen(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query(
    `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL`,
  );
  return rows.length > 0;
}

function exited(server: TestServer): Promise<{ code: number | null }> {
  const child = server.process();
  if (child.exitCode !== null) return Promise.resolve({ code: child.exitCode });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code })));
}

describe('SIGTERM during a running sync (PostgreSQL)', () => {
  let server: TestServer;
  let watcher: pg.Client;
  let host: Onboarded;

  async function start(env: Record<string, string>): Promise<void> {
    server = await startServer('postgres', { env: { DB_POOL_SIZE: '4', LOG_LEVEL: 'warn', ...env } });
    watcher = new pg.Client({ connectionString: server.databaseUrl! });
    await watcher.connect();
    host = await onboard(server, 'Shutdown Hosting');
  }

  afterEach(async () => {
    await watcher?.end();
    await server?.stop();
  });

  it('lets the sync finish, answers 503 or refuses what comes after, and exits 0', async () => {
    await start({ SHUTDOWN_TIMEOUT_MS: '30000', LOG_LEVEL: 'info' });
    const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await request(server, keepAlive, '/healthz')).status).toBe(200);

    // A connection busy with a request when the signal comes: its body is still on the way.
    const busy = connect(server.port, '127.0.0.1');
    let received = '';
    busy.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const busyClosed = new Promise((resolve) => busy.on('close', resolve));
    const category = JSON.stringify({ slug: 'late_arrival', label: 'Late arrival' });
    busy.write(
      `POST /admin/v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.adminToken}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${category.length}\r\n\r\n${category.slice(0, 5)}`,
    );

    const catalogue = Array.from({ length: 20_000 }, (_, i) => product(`s-${i}`));
    const running = sync(server, host.key, catalogue).catch((error: Error) => error);
    await until(() => transactionOpen(watcher), 60_000, 'the sync transaction to start');
    const exit = exited(server);
    server.process().kill('SIGTERM');
    // The signal is handled once the event loop is free (validation and planning run on it).
    await until(
      async () => server.output().includes('stopping: new requests get 503'),
      20_000,
      'the server to begin stopping',
    );

    // The idle keep-alive connection and new connections: 503 with Retry-After, or no connection at all.
    for (const agent of [keepAlive, new http.Agent({ keepAlive: false })]) {
      const answer = await request(server, agent, '/api/v1/categories').catch((error: NodeJS.ErrnoException) =>
        String(error.code),
      );
      if (typeof answer === 'string') {
        expect(['ECONNREFUSED', 'ECONNRESET']).toContain(answer);
      } else {
        expect(answer.status, answer.body).toBe(503);
        expect(JSON.parse(answer.body).code).toBe('SERVICE_UNAVAILABLE');
        expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(answer.headers.connection).toBe('close');
      }
    }

    // The busy connection: its request finishes; one more sent on it after the signal gets 503 and the close.
    busy.write(`${category.slice(5)}GET /api/v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await busyClosed;
    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 201 /);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nretry-after: \d+\r\n/i);
    expect(second).toMatch(/\r\nconnection: close\r\n/i);
    expect(second).toContain('"code":"SERVICE_UNAVAILABLE"');

    const answer = await running;
    if (answer instanceof Error) throw answer;
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.summary.created).toBe(20_000);
    const { code } = await exit;
    expect(code).toBe(0);
    // It stopped once its work was done, not at the deadline.
    expect(server.output()).not.toContain('shutdown deadline passed');
    const stored = await watcher.query(`SELECT count(*)::int AS n FROM products WHERE status = 'active'`);
    expect(stored.rows[0].n).toBe(20_000);
    keepAlive.destroy();
  }, 180_000);

  it('rolls back a sync still running at the deadline, entirely, and still exits 0', async () => {
    await start({ SHUTDOWN_TIMEOUT_MS: '300', SYNC_MAX_PER_WINDOW: '5' });
    expect((await sync(server, host.key, [product('old-1'), product('old-2')])).status).toBe(200);
    const before = (
      await watcher.query(`SELECT external_id, id, name, status, updated_at FROM products ORDER BY external_id`)
    ).rows;

    const catalogue = Array.from({ length: 50_000 }, (_, i) => product(`big-${i}`));
    const running = sync(server, host.key, catalogue).then(
      (answer) => answer.status,
      () => 'connection lost',
    );
    await until(() => transactionOpen(watcher), 60_000, 'the sync transaction to start');
    const exit = exited(server);
    server.process().kill('SIGTERM');
    const { code } = await exit;
    expect(code).toBe(0);
    // Stopped at the deadline, with the sync cut off: it did not finish (below).
    expect(server.output()).toContain('shutdown deadline passed');
    expect(await running).toBe('connection lost');

    await until(async () => !(await transactionOpen(watcher)), 30_000, 'the aborted transaction to end');
    expect(
      (await watcher.query(`SELECT external_id, id, name, status, updated_at FROM products ORDER BY external_id`)).rows,
    ).toEqual(before);
    const runs = await watcher.query(`SELECT count(*)::int AS n FROM sync_runs WHERE NOT dry_run`);
    expect(runs.rows[0].n).toBe(1);
    expect(server.output()).toMatch(/shutdown deadline passed/);
  }, 180_000);
});
