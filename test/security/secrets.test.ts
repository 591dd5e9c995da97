// Secrets at rest and in logs: after a full session (onboarding, rotation, revocation, syncs, failed attempts with
// real-looking keys, admin calls) no plaintext key or admin token is in the database, the data files or the log.
import { randomBytes } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync } from '../support/api.js';
import { describeOnPostgres, startServer, STORES, type TestServer } from '../support/server.js';

/** Every plaintext secret of one session, and what a failed attempt sent. */
interface Session {
  secrets: string[];
}

async function fullSession(server: TestServer): Promise<Session> {
  const first = await onboard(server, 'Secret Keeper');
  const rotated = (await admin(server, 'POST', `/hosts/${first.slug}/keys`)).body.api_key;
  expect(rotated.key).toMatch(/^rk_[0-9a-f]{64}$/);
  expect((await sync(server, first.key, [product('a'), product('b')])).status).toBe(200);
  expect((await sync(server, rotated.key, [product('a')], '?dry_run=true')).status).toBe(200);
  expect((await admin(server, 'POST', `/keys/${first.keyId}/revoke`)).status).toBe(200);
  expect((await sync(server, first.key, [product('a')])).status).toBe(403);
  // Real-looking failures: a random key, the real one with its last digit changed, the real one in upper case.
  const changed = `${rotated.key.slice(0, -1)}${rotated.key.endsWith('0') ? '1' : '0'}`;
  const guessed = [`rk_${randomBytes(32).toString('hex')}`, changed, rotated.key.toUpperCase()];
  for (const key of guessed) expect((await call(server, 'GET', '/api/v1/products', { token: key })).status).toBe(401);
  const wrongAdmin = `${server.adminToken}-wrong`;
  expect((await call(server, 'GET', '/admin/v1/hosts', { token: wrongAdmin })).status).toBe(401);
  expect((await admin(server, 'GET', `/hosts/${first.slug}/keys`)).status).toBe(200);
  expect((await admin(server, 'GET', `/hosts/${first.slug}/syncs`)).status).toBe(200);
  // A key pasted by mistake as the request id and as the Idempotency-Key of a (dry-run) sync: the answer's request
  // id is a fresh one, and the Idempotency-Key still works, kept only as its digest.
  const misplaced = () =>
    call(server, 'POST', '/api/v1/sync/products?dry_run=true', {
      token: rotated.key,
      json: { products: [product('a')] },
      headers: { 'x-request-id': rotated.key, 'idempotency-key': rotated.key },
    });
  const pasted = await misplaced();
  expect(pasted.status).toBe(200);
  expect(pasted.headers.get('x-request-id')).toMatch(/^req_/);
  const again = await misplaced();
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body.sync_id).toBe(pasted.body.sync_id);
  // Keys sent where they do not belong: in a query string and a header the server does not read.
  await call(server, 'GET', `/api/v1/products?key=${rotated.key}`, {
    token: rotated.key,
    headers: { 'x-api-key': rotated.key },
  });
  return { secrets: [first.key, rotated.key, ...guessed, server.adminToken, wrongAdmin] };
}

/** A secret counts as leaked in its plain form or as its hex part alone (a key without its rk_ prefix). */
function leaksOf(text: string, secrets: string[]): string[] {
  return secrets.filter((secret) => text.includes(secret) || text.includes(secret.replace(/^rk_/, '')));
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe.each(STORES)('secrets on the %s store', (store) => {
  let server: TestServer;

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps no plaintext key anywhere in the database or its files, and none in the log', async () => {
    server = await startServer(store);
    const { secrets } = await fullSession(server);
    const logged = server.output();

    if (store === 'postgres') {
      const tables = await server.sql<{ name: string }>(
        `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
         WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`,
      );
      expect(tables.map((t) => t.name)).toEqual(
        expect.arrayContaining(['public.api_keys', 'public.products', 'public.hosts']),
      );
      let dump = '';
      for (const { name } of tables) {
        const rows = await server.sql<{ row: string }>(`SELECT t::text AS row FROM ${name} t`);
        dump += rows.map((r) => r.row).join('\n');
      }
      expect(dump).toContain('secret-keeper');
      expect(
        leaksOf(dump, secrets).map((s) => s.slice(0, 8)),
        'in the database',
      ).toEqual([]);
    } else {
      // The embedded store's pages are plain files: stop the server so that everything is flushed, then grep them.
      await server.kill();
      const files = (await filesUnder(server.dataDir)).filter((file) => path.basename(file) !== 'admin-token');
      expect(files.length).toBeGreaterThan(0);
      let sawData = false;
      for (const file of files) {
        const bytes = await readFile(file);
        if (bytes.includes('secret-keeper')) sawData = true;
        for (const secret of secrets) {
          expect(bytes.includes(secret), `${secret.slice(0, 6)}… in ${file}`).toBe(false);
          expect(bytes.includes(secret.replace(/^rk_/, '')), `${secret.slice(0, 6)}… in ${file}`).toBe(false);
        }
      }
      // The grep must be able to see stored text at all, or it proves nothing.
      expect(sawData).toBe(true);
    }

    expect(logged).toContain('request completed');
    expect(
      leaksOf(logged, secrets).map((s) => s.slice(0, 8)),
      logged
        .split('\n')
        .filter((l) => leaksOf(l, secrets).length > 0)
        .join('\n')
        .slice(0, 600),
    ).toEqual([]);
    expect(logged).not.toMatch(/rk_[0-9a-f]{64}/);
    expect(logged.toLowerCase()).not.toContain('bearer ');
  });
});

describeOnPostgres('the generated admin token', () => {
  let server: TestServer;

  afterAll(async () => {
    await server?.stop();
  });

  it('is written mode 0600, stays so after a restart, and never reaches the log', async () => {
    server = await startServer('postgres', { env: { ADMIN_TOKEN: '' } });
    const file = path.join(server.dataDir, 'admin-token');
    const token = (await readFile(file, 'utf8')).trim();
    expect(token).toMatch(/^adm_[0-9a-f]{64}$/);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await call(server, 'GET', '/admin/v1/hosts', { token })).status).toBe(200);
    await server.restart();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).trim()).toBe(token);
    expect(server.output()).not.toContain(token);
    expect(server.output()).not.toContain(token.replace(/^adm_/, ''));
  });
});
