// `hostdir serve --workers N`: N processes share the port, a dead one is replaced, SIGTERM stops them all.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync } from '../support/api.js';
import { CLI, MAIN, startServer, type TestServer } from '../support/server.js';
import { until } from '../support/until.js';

/** pids of the workers that said they are listening, in order of appearance */
function listeningWorkers(output: string): number[] {
  const pids: number[] = [];
  for (const line of output.split('\n')) {
    if (!line.includes('hostdir listening on')) continue;
    const pid = (JSON.parse(line) as { pid: number }).pid;
    if (!pids.includes(pid)) pids.push(pid);
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function healthOnNewConnection(server: TestServer): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(`${server.url}/healthz`, { agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('serve --workers 2 on PostgreSQL', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer('postgres', { args: [CLI, 'serve', '--workers', '2'], env: { DB_POOL_SIZE: '4' } });
    await until(() => listeningWorkers(server.output()).length === 2, 30_000, 'two workers');
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('serves from both workers and sums their metrics', async () => {
    // The primary hands out connections, not requests: one connection per request reaches both workers.
    for (let i = 0; i < 12; i++) expect(await healthOnNewConnection(server)).toBe(200);
    const [a, b] = listeningWorkers(server.output());
    // Each worker logs the requests it answered; round-robin gives both of them some.
    const served = new Set(
      server
        .output()
        .split('\n')
        .filter((line) => line.includes('"request completed"'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    );
    expect(served).toEqual(new Set([a, b]));

    const metrics = await call(server, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(
      metricValue(metrics.text, 'hostdir_http_requests_total{method="GET",route="/healthz",status="200"}'),
    ).toBeGreaterThanOrEqual(12);
  });

  it('replaces a worker that dies, and keeps serving meanwhile', async () => {
    const [victim, survivor] = listeningWorkers(server.output());
    process.kill(victim!, 'SIGKILL');
    await until(() => !alive(victim!), 5_000, 'the worker to die');
    // A connection the client kept open to the killed worker died with it: a request sent on it fails, as with any
    // server process that dies (a POST is not retried). The client finds that out by using it; new connections then
    // reach the survivor.
    await until(
      () =>
        fetch(`${server.url}/healthz`).then(
          (answer) => answer.ok,
          () => false,
        ),
      5_000,
      'a request to be served',
    );
    const host = await onboard(server, 'Worker Hosting');
    expect((await sync(server, host.key, [product('w-1')])).status).toBe(200);
    await until(() => listeningWorkers(server.output()).length === 3, 30_000, 'a replacement worker');
    const replacement = listeningWorkers(server.output())[2]!;
    expect(alive(replacement)).toBe(true);
    expect(alive(survivor!)).toBe(true);
    expect(server.output()).toMatch(/worker \d+ exited \(SIGKILL\); starting another/);
    expect((await call(server, 'GET', '/readyz')).status).toBe(200);
  });

  it('stops every worker and exits 0 on SIGTERM to the primary', async () => {
    const workers = listeningWorkers(server.output()).filter(alive);
    expect(workers).toHaveLength(2);
    const code = await server.kill('SIGTERM');
    expect(code).toBe(0);
    await until(() => workers.every((pid) => !alive(pid)), 10_000, 'the workers to stop');
  });
});

describe('--workers on the embedded store', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'hostdir-workers-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const env = () => ({ PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0' });

  it('is refused with a clear message by npm start (WORKERS) and by hostdir serve --workers', () => {
    const started = spawnSync(process.execPath, [MAIN], {
      env: { ...env(), WORKERS: '2' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(started.status).toBe(1);
    expect(started.stderr).toMatch(
      /2 workers need DATABASE_URL: the embedded store \(PGlite\) can be opened by one process only/,
    );

    const served = spawnSync(process.execPath, [CLI, 'serve', '--workers', '3'], {
      env: env(),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(served.status).toBe(2);
    expect(served.stderr).toMatch(/3 workers need DATABASE_URL/);
  });
});
