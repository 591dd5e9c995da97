// The embedded server's first start: the store is made (PGlite's initdb) and migrated, then kept across restarts.
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';

describe('an embedded server’s first start', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  // An embedded store made (PGlite's initdb and every migration) and opened again after a restart, on a machine
  // running other suites.
  it('makes its store, then serves and keeps what it is sent', { timeout: 120_000 }, async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'hostdir-first-'));
    const server = await startServer('embedded', { dataDir });
    servers.push(server);
    expect(existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true);

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
    expect(failed).toContain(
      `hostdir failed to start: the embedded store in ${path.join(dataDir, 'pglite')} cannot be opened`,
    );
  });
});
