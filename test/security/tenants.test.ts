// Tenant walls: a provider sees and touches only its own catalogue, whatever ids it sends or guesses.
// On PostgreSQL only: both stores run the same SQL, and the walls are in that SQL (every query keyed by host).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';

describe('tenant walls', () => {
  let server: TestServer;
  let alpha: Onboarded;
  let beta: Onboarded;
  let alphaIds: string[];

  const listing = async (key: string, query = '?status=all&limit=1000') =>
    (await call(server, 'GET', `/api/v1/products${query}`, { token: key })).body;

  beforeAll(async () => {
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '100' } });
    alpha = await onboard(server, 'Alpha Hosting');
    beta = await onboard(server, 'Beta Hosting');
    const first = await sync(server, alpha.key, [
      product('shared', { name: 'Alpha shared' }),
      product('alpha-only'),
      product('gone'),
    ]);
    expect(first.status).toBe(200);
    expect(
      (await sync(server, alpha.key, [product('shared', { name: 'Alpha shared' }), product('alpha-only')])).status,
    ).toBe(200);
    alphaIds = (await listing(alpha.key)).products.map((p: { id: string }) => p.id);
    expect(alphaIds).toHaveLength(3);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps the same external_id under two providers as two unrelated products', async () => {
    const before = await listing(alpha.key);
    const answer = await sync(server, beta.key, [
      product('shared', { name: 'Beta shared', price: 1 }),
      product('gone'),
    ]);
    expect(answer.status).toBe(200);
    // Beta's first sync creates both: alpha's "shared" and inactive "gone" are not beta's to update or reactivate.
    expect(answer.body.summary).toMatchObject({ created: 2, updated: 0, reactivated: 0, deactivated: 0 });
    expect(answer.body.products.map((p: { id: string }) => p.id).some((id: string) => alphaIds.includes(id))).toBe(
      false,
    );
    expect(await listing(alpha.key)).toEqual(before);
  });

  it("never lists another provider's products, whatever status, limit or cursor is asked for", async () => {
    const betaProducts = (await listing(beta.key)).products;
    expect(betaProducts.map((p: { external_id: string }) => p.external_id).sort()).toEqual(['gone', 'shared']);
    for (const p of betaProducts) expect(alphaIds).not.toContain(p.id);
    // A cursor forged from alpha's ids only moves through beta's own list.
    for (const id of alphaIds) {
      const cursor = Buffer.from(id, 'utf8').toString('base64url');
      for (const status of ['active', 'inactive', 'all']) {
        const page = await call(server, 'GET', `/api/v1/products?status=${status}&cursor=${cursor}`, {
          token: beta.key,
        });
        expect(page.status).toBe(200);
        for (const p of page.body.products) expect(alphaIds).not.toContain(p.id);
      }
    }
  });

  it("deactivates only the syncing provider's products", async () => {
    const before = await listing(alpha.key);
    const answer = await sync(server, beta.key, [product('beta-new')]);
    expect(answer.status).toBe(200);
    expect(answer.body.deactivated.map((d: { external_id: string }) => d.external_id).sort()).toEqual([
      'gone',
      'shared',
    ]);
    expect(await listing(alpha.key)).toEqual(before);
  });

  it("answers another provider's ids with 404, never 403 or details", async () => {
    // Resource paths under the provider API that take an id; each one must not tell "exists elsewhere" apart.
    const probes = alphaIds.flatMap((id) => [`/api/v1/products/${id}`, `/api/v1/sync/products/${id}`]);
    for (const path of probes) {
      const answer = await call(server, 'GET', path, { token: beta.key });
      expect(answer.status, path).toBe(404);
      expect(answer.text).not.toContain('Alpha');
      expect(answer.text).not.toContain(alpha.slug);
    }
  });
});
