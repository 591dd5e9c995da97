// Probes and the public category registry (contract sections 4 and 8): the seeded categories, and categories the
// operator adds becoming valid for syncs at once.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync } from '../support/api.js';
import { STORES, startServer, type TestServer } from '../support/server.js';
import { expectProblem } from './assertions.js';

const SEEDED = [
  'web_shared',
  'web_wordpress',
  'web_reseller',
  'vps_cloud',
  'vps_managed',
  'dedicated',
  'dedicated_gpu',
  'colocation',
  'storage',
  'backup',
  'email',
  'domain',
  'ssl',
  'cdn',
  'game_minecraft',
  'game_rust',
  'game_ark',
  'game_valheim',
  'game_cs2',
  'game_palworld',
  'game_other',
  'voice_teamspeak',
];

/**
 * The liveness probe as a load balancer or the kubelet sends it: on a connection of its own, closed after the answer.
 * (A kept-alive connection would race the server's keep-alive timer whenever a long write holds its event loop
 * past KEEP_ALIVE_TIMEOUT_MS: the timer fires first, and the request already sent meets a closed connection.)
 */
function probe(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(`${url}/healthz`, { agent: false }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

describe.each(STORES)('health and categories (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(store);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('answers the probes', async () => {
    const live = await call(server, 'GET', '/healthz');
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toMatch(/^application\/json/);
    const ready = await call(server, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers its liveness probe while a large catalogue is written', { timeout: 120_000 }, async () => {
    // The embedded store runs PostgreSQL on the event loop, its promises settling without I/O: unless it lets the
    // loop through between the pieces of a large COPY, nothing is answered until the sync is. Asked one at a time,
    // the probe is answered about once per piece of about 1 MB (30 000 products: about 30), else only while the body
    // arrives and is validated (3 or 4 times here).
    const host = await onboard(server, 'Liveness Hosting');
    const products = Array.from({ length: 30_000 }, (_, k) => product(`live-${k}`));
    let done = false;
    const syncing = sync(server, host.key, products).finally(() => (done = true));
    let answered = 0;
    while (!done) {
      expect(await probe(server.url)).toBe(200);
      if (!done) answered++;
    }
    const applied = await syncing;
    expect(applied.status).toBe(200);
    expect(applied.body.summary.created).toBe(30_000);
    expect(answered).toBeGreaterThanOrEqual(12);
  });

  it('lists the 22 seeded categories publicly, each with slug and label', async () => {
    const answer = await call(server, 'GET', '/api/v1/categories');
    expect(answer.status).toBe(200);
    const categories: { slug: string; label: string }[] = answer.body.categories;
    expect(categories.map((c) => c.slug).sort()).toEqual([...SEEDED].sort());
    for (const category of categories) {
      expect(Object.keys(category).sort()).toEqual(['label', 'slug']);
      expect(typeof category.label).toBe('string');
      expect(category.label.length).toBeGreaterThan(0);
    }
  });

  it('makes a category added by the operator listed and valid for syncs', async () => {
    const host = await onboard(server, 'Factorio Hosting');
    const before = await sync(server, host.key, [product('factorio-1', { category: 'game_factorio' })]);
    const problem = expectProblem(before, 'VALIDATION_FAILED', '/api/v1/sync/products');
    expect(problem.errors).toEqual([{ pointer: '/products/0/category', code: 'enum', detail: expect.any(String) }]);
    expect(problem.errors[0].detail).not.toContain('game_factorio');
    // The pages keep the registry a few seconds: read now, it holds no such category.
    expect((await fetch(`${server.url}/categories/game_factorio`)).status).toBe(404);
    expect((await fetch(`${server.url}/categories/vps_cloud`)).status).toBe(200);

    const added = await admin(server, 'POST', '/categories', { slug: 'game_factorio', label: 'Factorio servers' });
    expect(added.status, added.text).toBe(201);
    // … yet the new category's page is there at once.
    const page = await fetch(`${server.url}/categories/game_factorio`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Factorio servers');
    expect(added.body.category).toEqual({ slug: 'game_factorio', label: 'Factorio servers' });

    const listed = await call(server, 'GET', '/api/v1/categories');
    expect(listed.body.categories).toHaveLength(SEEDED.length + 1);
    expect(listed.body.categories).toContainEqual({ slug: 'game_factorio', label: 'Factorio servers' });
    const adminListed = await admin(server, 'GET', '/categories');
    expect(adminListed.body.categories).toContainEqual({ slug: 'game_factorio', label: 'Factorio servers' });

    const after = await sync(server, host.key, [product('factorio-1', { category: 'game_factorio' })]);
    expect(after.status, after.text).toBe(200);
    expect(after.body.products[0].action).toBe('created');
    const mine = await call(server, 'GET', '/api/v1/products', { token: host.key });
    expect(mine.body.products[0].category).toBe('game_factorio');

    // A category slug that is taken is not added twice.
    const again = await admin(server, 'POST', '/categories', { slug: 'game_factorio', label: 'Other label' });
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect((await call(server, 'GET', '/api/v1/categories')).body.categories).toHaveLength(SEEDED.length + 1);
  });

  it('does not let a provider key add categories', async () => {
    const host = await onboard(server, 'Sneaky Hosting');
    const answer = await call(server, 'POST', '/admin/v1/categories', {
      token: host.key,
      json: { slug: 'sneaky', label: 'Sneaky' },
    });
    expect(answer.status).toBe(401);
    expect((await call(server, 'GET', '/api/v1/categories')).body.categories.map((c: any) => c.slug)).not.toContain(
      'sneaky',
    );
  });
});
