// What survives a restart (contract section 8: the embedded store persists under DATA_DIR, PostgreSQL is
// PostgreSQL), and what the log holds: JSON lines with each request's id, never a key or the admin token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync } from '../support/api.js';
import { STORES, startServer, type TestServer } from '../support/server.js';
import { expectProblem, listingOf } from './assertions.js';

/** Every line the server wrote, parsed: the log is JSON lines only. */
function logLines(server: TestServer): Record<string, unknown>[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
    });
}

/** Waits until the server's log mentions `text` (its output arrives through a pipe). */
async function logged(server: TestServer, text: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!server.output().includes(text)) {
    if (Date.now() > deadline) throw new Error(`"${text}" never appeared in the log`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves while a statement writing products is running or its transaction is still open, or once `done` settles. */
async function untilWritingProducts(server: TestServer, done: Promise<unknown>): Promise<void> {
  let settled = false;
  void done.finally(() => (settled = true));
  while (!settled) {
    const writing = await server.sql(
      `SELECT 1 FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND state IN ('active', 'idle in transaction')
         AND (query ILIKE 'INSERT INTO products%' OR query ILIKE 'COPY products%')`,
    );
    if (writing.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.each(STORES)('persistence and logs (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    // The default window: the rate limit, too, must survive the restart.
    server = await startServer(store);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps hosts, keys, products, runs and categories across a restart', async () => {
    const host = await onboard(server, 'Durable Hosting', { default_currency: 'CHF' });
    const other = await onboard(server, 'Paused Hosting');
    const spare = await admin(server, 'POST', `/hosts/${host.slug}/keys`);
    await admin(server, 'POST', `/keys/${spare.body.api_key.id}/revoke`);
    await admin(server, 'POST', `/hosts/${other.slug}/suspend`);
    expect(
      (await admin(server, 'POST', '/categories', { slug: 'game_satisfactory', label: 'Satisfactory servers' })).status,
    ).toBe(201);

    const applied = await sync(server, host.key, [
      product('keep-1', { price: 19.99, currency: null }),
      product('keep-2', { category: 'game_satisfactory' }),
    ]);
    expect(applied.status, applied.text).toBe(200);

    const listing = await listingOf(server, host.key, 'all');
    const hosts = (await admin(server, 'GET', '/hosts')).body.hosts;
    const runs = (await admin(server, 'GET', `/hosts/${host.slug}/syncs`)).body.runs;
    const keys = (await admin(server, 'GET', `/hosts/${host.slug}/keys`)).body.keys;
    // A key is shown once: listings name it by id and its first 8 characters after rk_, never in full.
    expect(host.key).toMatch(/^rk_[0-9a-f]{64}$/);
    expect(keys.map((k: any) => [k.id, k.prefix, k.status])).toEqual([
      [host.keyId, host.key.slice(3, 11), 'active'],
      [spare.body.api_key.id, spare.body.api_key.key.slice(3, 11), 'revoked'],
    ]);
    expect(JSON.stringify(keys)).not.toContain(host.key.slice(3, 20));
    const categories = (await call(server, 'GET', '/api/v1/categories')).body.categories;
    expect(runs).toHaveLength(1);

    await server.restart();

    expect(await listingOf(server, host.key, 'all')).toEqual(listing);
    expect(listing.map((p) => [p.external_id, p.price, p.currency])).toEqual([
      ['keep-1', 19.99, 'CHF'],
      ['keep-2', 9.99, 'USD'],
    ]);
    expect((await admin(server, 'GET', '/hosts')).body.hosts).toEqual(hosts);
    expect((await admin(server, 'GET', `/hosts/${host.slug}/syncs`)).body.runs).toEqual(runs);
    const keysAfter = (await admin(server, 'GET', `/hosts/${host.slug}/keys`)).body.keys;
    expect(keysAfter.map((k: any) => [k.id, k.status])).toEqual(keys.map((k: any) => [k.id, k.status]));
    expect((await call(server, 'GET', '/api/v1/categories')).body.categories).toEqual(categories);

    // Keys and statuses still decide: the revoked key and the suspended host stay refused.
    expectProblem(await sync(server, spare.body.api_key.key, [product('x')]), 'KEY_REVOKED', '/api/v1/sync/products');
    expectProblem(await sync(server, other.key, [product('x')]), 'KEY_REVOKED', '/api/v1/sync/products');
    // The window is kept in the database: the host's only slot is still taken.
    expectProblem(await sync(server, host.key, [product('keep-1')]), 'RATE_LIMITED', '/api/v1/sync/products');
    // A fresh host can still sync.
    const fresh = await onboard(server, 'After Restart Hosting');
    expect((await sync(server, fresh.key, [product('new-1', { category: 'game_satisfactory' })])).status).toBe(200);
  });

  it('after a crash in the middle of a sync holds the previous catalogue or the whole new one, nothing between', async () => {
    const host = await onboard(server, 'Crashing Hosting');
    const catalogue = Array.from({ length: 3000 }, (_, i) => product(`crash-${i}`));
    const pending = sync(server, host.key, catalogue).catch((error: Error) => error);
    // Kill the process, without a graceful stop, while it works on the request: on PostgreSQL once the products are
    // being written inside the sync's transaction; the embedded store offers no such view, so a moment after it starts.
    await logged(server, '"url":"/api/v1/sync/products"');
    if (store === 'postgres') await untilWritingProducts(server, pending);
    else await new Promise((resolve) => setTimeout(resolve, 300));
    await server.kill('SIGKILL');
    const answer = await pending;
    await server.restart();

    const counts = (await admin(server, 'GET', `/hosts/${host.slug}`)).body.host.product_counts;
    const runs = (await admin(server, 'GET', `/hosts/${host.slug}/syncs`)).body.runs;
    if (counts.active === 0) {
      expect(runs).toEqual([]);
      expect(answer).toBeInstanceOf(Error);
    } else {
      expect(counts).toEqual({ active: catalogue.length, inactive: 0 });
      expect(runs).toHaveLength(1);
      expect(runs[0].summary.created).toBe(catalogue.length);
    }
    expect(counts.inactive).toBe(0);
  });

  it('logs JSON lines with request ids and never a key or the admin token', async () => {
    const host = await onboard(server, 'Logged Hosting');
    const rotated = await admin(server, 'POST', `/hosts/${host.slug}/keys`);
    const issued: string[] = [host.key, rotated.body.api_key.key];
    const applied = await sync(server, host.key, [product('log-1')], '');
    expect(applied.status).toBe(200);
    const listed = await call(server, 'GET', '/api/v1/products', { token: rotated.body.api_key.key });
    expect(listed.status).toBe(200);

    const bogusKey = `rk_${'c0ffee42'.repeat(8)}`;
    const bogusToken = 'not-a-key-but-a-secret-7f3a9b';
    const refusedKey = await sync(server, bogusKey, [product('log-2')]);
    expect(refusedKey.status).toBe(401);
    const refusedToken = await call(server, 'GET', '/api/v1/products', { token: bogusToken });
    expect(refusedToken.status).toBe(401);
    const refusedAdmin = await call(server, 'GET', '/admin/v1/hosts', { token: `${server.adminToken}-nope` });
    expect(refusedAdmin.status).toBe(401);
    // A client that puts its key into the URL instead of the header: refused, and the key stays out of the log.
    const inQuery = await call(server, 'GET', `/api/v1/products?api_key=${host.key}`);
    expect(inQuery.status).toBe(401);
    const inPath = await call(server, 'GET', `/api/v1/products/${rotated.body.api_key.key}`, { token: host.key });
    expect(inPath.status).toBe(404);
    const chosenId = 'billing-run-4711';
    const traced = await call(server, 'GET', '/api/v1/products', {
      token: host.key,
      headers: { 'x-request-id': chosenId },
    });
    expect(traced.headers.get('x-request-id')).toBe(chosenId);
    await logged(server, chosenId);

    const output = server.output();
    for (const key of issued) expect(output).not.toContain(key);
    expect(output).not.toMatch(/rk_[0-9a-f]{16}/);
    expect(output).not.toContain(server.adminToken);
    expect(output).not.toContain(bogusKey);
    expect(output).not.toContain(bogusToken);

    // Every answer's X-Request-Id names the log lines of that request.
    const lines = logLines(server);
    for (const answer of [applied, listed, refusedKey, refusedToken, refusedAdmin, inQuery, inPath, traced]) {
      const id = answer.headers.get('x-request-id');
      expect(id).toBeTruthy();
      const mine = lines.filter((line) => Object.values(line).includes(id));
      expect(mine.length, `log lines of ${id}`).toBeGreaterThan(0);
    }
    // The status of a refused request is in its log line.
    const refusedLines = lines.filter((line) => Object.values(line).includes(refusedKey.headers.get('x-request-id')));
    expect(JSON.stringify(refusedLines)).toContain('401');
  });
});
