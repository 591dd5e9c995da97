// `hostdir push` against the real server: the answer lost after the server committed is recovered by the retry
// under the same Idempotency-Key (through a proxy that drops the first answer), refusals, the rate limit, --json.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product } from '../support/api.js';
import { CLI, startServer, type TestServer } from '../support/server.js';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function hostdir(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * A TCP proxy on 127.0.0.1 that forwards requests to the server. On the first connection it passes the request on
 * but, as soon as the server starts answering (so the sync has been committed), it cuts the client off instead of
 * passing the answer back.
 */
async function lossyProxy(target: number): Promise<{ url: string; connections(): number; close(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const proxy: Server = createServer((client) => {
    connections++;
    const dropAnswer = connections === 1;
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream);
    if (dropAnswer) {
      upstream.once('data', () => {
        client.destroy();
        upstream.destroy();
      });
    } else {
      upstream.pipe(client);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe('hostdir push', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    server = await startServer('postgres');
    dir = await mkdtemp(path.join(tmpdir(), 'hostdir-push-'));
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function catalogueFile(name: string, content: unknown): Promise<string> {
    const file = path.join(dir, name);
    await writeFile(file, JSON.stringify(content));
    return file;
  }

  it('recovers the answer of a sync whose answer was lost after the commit, and applies it once', async () => {
    const host = await onboard(server, 'Lossy Link Hosting');
    const file = await catalogueFile('lossy.json', {
      products: [product('vps-s'), product('vps-m'), product('vps-l')],
    });
    const proxy = await lossyProxy(server.port);
    try {
      const run = await hostdir(['push', file, '--key', host.key, '--url', proxy.url]);
      expect(run.code, run.stderr).toBe(0);
      expect(proxy.connections()).toBeGreaterThanOrEqual(2);
      expect(run.stderr).toMatch(/retrying in 1 s with the same Idempotency-Key/);
      expect(run.stderr).toMatch(/already applied/);
      expect(run.stdout).toMatch(/^Synced: lossy-link-hosting, syn_/);
      expect(run.stdout).toMatch(/created\s+3/);
      expect(`${run.stdout}${run.stderr}`).not.toContain(host.key);

      // One applied run, and it is the one the output shows.
      const runs = await call(server, 'GET', '/api/v1/sync/runs', { token: host.key });
      expect(runs.body.runs).toHaveLength(1);
      expect(run.stdout).toContain(runs.body.runs[0].sync_id);
      expect(runs.body.runs[0].summary.created).toBe(3);
      const stored = await server.sql<{ count: number }>(
        `SELECT count(*)::int AS count FROM products p JOIN hosts h ON h.id = p.host_id WHERE h.slug = $1`,
        [host.slug],
      );
      expect(stored[0]!.count).toBe(3);
    } finally {
      await proxy.close();
    }
  });

  it('accepts a bare array and a key from HOSTDIR_API_KEY, and prints the answer with --json', async () => {
    const host = await onboard(server, 'Array Hosting');
    const file = await catalogueFile('array.json', [product('a'), product('b')]);
    const run = await hostdir(['push', file, '--dry-run', '--json'], {
      HOSTDIR_API_KEY: host.key,
      HOSTDIR_URL: server.url,
    });
    expect(run.code, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout);
    expect(answer).toMatchObject({ dry_run: true, host: host.slug, summary: { received: 2, created: 2 } });
    const listing = await call(server, 'GET', '/api/v1/products?status=all', { token: host.key });
    expect(listing.body.products).toEqual([]);
  });

  it('shows upload progress on stderr for a body over 1 MB', async () => {
    const host = await onboard(server, 'Big Upload Hosting');
    // Random descriptions keep the gzip body above 1 MB.
    const products = Array.from({ length: 1_500 }, (_, i) =>
      product(`big-${i}`, { description: randomBytes(750).toString('base64') }),
    );
    const file = await catalogueFile('big.json', products);
    const run = await hostdir(['push', file, '--key', host.key, '--url', server.url, '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^uploading 0\.\d MB of 1\.\d MB \(gzip\), 0%$/m);
    expect(run.stderr).toMatch(/^uploading 1\.\d MB of 1\.\d MB \(gzip\), 100%$/m);
    expect(run.stdout).toMatch(/received\s+1500/);
  });

  it('exits 1 with each validation problem on its own line, and applies nothing', async () => {
    const host = await onboard(server, 'Broken Hosting');
    const file = await catalogueFile('broken.json', { products: [product('a', { price: -1, category: 'nope' })] });
    const run = await hostdir(['push', file, '--key', host.key, '--url', server.url]);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^error: .*\(VALIDATION_FAILED, HTTP 422\)$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^ {2}\/products\/0\/category enum /),
      expect.stringMatching(/^ {2}\/products\/0\/price minimum /),
    ]);
    expect((await call(server, 'GET', '/api/v1/sync/runs', { token: host.key })).body.runs).toEqual([]);
  });

  it('with --no-wait, exits 4 when the window is full; without a key it is a usage error', async () => {
    const host = await onboard(server, 'Limited Hosting');
    const file = await catalogueFile('limited.json', [product('a')]);
    expect((await hostdir(['push', file, '--key', host.key, '--url', server.url])).code).toBe(0);
    const limited = await hostdir(['push', file, '--key', host.key, '--url', server.url, '--no-wait']);
    expect(limited.code).toBe(4);
    expect(limited.stderr).toMatch(/rate limited: .*try again in \d+ s \(RATE_LIMITED, HTTP 429\)/);

    const keyless = await hostdir(['push', file, '--url', server.url]);
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toMatch(/HOSTDIR_API_KEY/);
    const missing = await hostdir(['push', path.join(dir, 'absent.json'), '--key', host.key, '--url', server.url]);
    expect(missing.code).toBe(2);
  });

  it('reports an unreachable server with exit 3 after its retries', async () => {
    const host = await onboard(server, 'Unreachable Hosting');
    const file = await catalogueFile('unreachable.json', [product('a')]);
    const closed = await lossyProxy(1);
    const url = closed.url;
    await closed.close();
    const run = await hostdir(['push', file, '--key', host.key, '--url', url], { HOSTDIR_PUSH_MAX_ATTEMPTS: '2' });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/gave up after 2 attempts/);
  });
});
