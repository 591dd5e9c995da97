// The embedded server's first start: the store is made (PGlite's initdb) and migrated by a node process of its own
// (src/store/embedded-init.ts), so that the server never holds what making it takes: about 650 MB for a moment, and
// about 35 MB more than a restarted server for as long as it ran.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';

/** The ids of the processes running now whose command line names `script` and `argument` (Linux: read from /proc). */
async function processesRunning(script: string, argument: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry));
  const found: number[] = [];
  for (const pid of pids) {
    const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (args.some((arg) => arg.endsWith(script)) && args.includes(argument)) found.push(Number(pid));
  }
  return found;
}

/** Starts `start` and gathers meanwhile the processes that run `script` on `argument`, as often as it can. */
async function watchingFor<T>(script: string, argument: string, start: () => Promise<T>): Promise<{ started: T; seen: Set<number> }> {
  const seen = new Set<number>();
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      for (const pid of await processesRunning(script, argument)) seen.add(pid);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    return { started: await start(), seen };
  } finally {
    watching = false;
    await watcher;
  }
}

describe('an embedded server’s first start', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('makes its store in a process of its own, then serves and keeps what it is sent', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hostdir-first-'));
    const store = path.join(dataDir, 'pglite');
    const { started: server, seen } = await watchingFor('embedded-init.js', store, () => startServer('embedded', { dataDir }));
    servers.push(server);
    expect(existsSync(path.join(store, 'PG_VERSION'))).toBe(true);
    if (process.platform === 'linux') {
      // Made by a process of its own (initdb in WebAssembly takes seconds), which has exited since.
      expect(seen.size).toBeGreaterThan(0);
      expect(seen.has(server.process().pid!)).toBe(false);
      expect(await processesRunning('embedded-init.js', store)).toEqual([]);
    }

    const host = await onboard(server, 'First Start Hosting');
    const answer = await sync(server, host.key, [product('first-1'), product('first-2')]);
    expect(answer.status).toBe(200);
    expect(answer.body.summary.created).toBe(2);

    await server.restart();
    const listed = await call(server, 'GET', '/api/v1/products', { token: host.key });
    expect(listed.status).toBe(200);
    expect((listed.body as { products: { external_id?: string }[] }).products).toHaveLength(2);
  });

  it('says why it cannot make its store, and stops', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hostdir-first-'));
    // Where the store's folder should be, a file.
    await writeFile(path.join(dataDir, 'pglite'), 'not a folder');
    const failed = await startServer('embedded', { dataDir }).then(
      (server) => (servers.push(server), null),
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/server exited with 1/);
    expect(failed).toContain(`hostdir failed to start: making the embedded store in ${path.join(dataDir, 'pglite')} failed`);
  });
});
