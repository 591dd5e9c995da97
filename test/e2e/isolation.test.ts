// Hosts are independent (contract sections 1 and 7): the same external_id under two hosts is two products, a
// sync of one host never touches another's listing, and a provider's key sees only its own products.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync } from '../support/api.js';
import { STORES, startServer, type TestServer } from '../support/server.js';
import { listingOf } from './assertions.js';

describe.each(STORES)('isolation between hosts (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(store, { env: { SYNC_MAX_PER_WINDOW: '1000' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps two hosts with the same external_ids apart', async () => {
    const a = await onboard(server, 'Alpha Hosting');
    const b = await onboard(server, 'Beta Hosting', { default_currency: 'EUR' });

    const fromA = await sync(server, a.key, [
      product('shared-1', { name: 'Alpha One', price: 10 }),
      product('shared-2'),
      product('only-a'),
    ]);
    const fromB = await sync(server, b.key, [
      product('shared-1', { name: 'Beta One', price: 20, currency: null }),
      product('shared-2'),
    ]);
    expect(fromA.status).toBe(200);
    expect(fromB.status).toBe(200);
    // Created under B although A already has these external_ids, with ids of its own.
    expect(fromB.body.products.map((p: any) => p.action)).toEqual(['created', 'created']);
    const idsA = new Set(fromA.body.products.map((p: any) => p.id));
    for (const p of fromB.body.products) expect(idsA.has(p.id)).toBe(false);

    const bBefore = await listingOf(server, b.key, 'all');
    expect(bBefore.map((p) => [p.external_id, p.name, p.price, p.currency]).sort()).toEqual([
      ['shared-1', 'Beta One', 20, 'EUR'],
      ['shared-2', 'Cloud VPS shared-2', 9.99, 'USD'],
    ]);

    // A updates shared-1 and drops shared-2: only A's products move.
    const again = await sync(server, a.key, [
      product('shared-1', { name: 'Alpha One v2', price: 11 }),
      product('only-a'),
    ]);
    expect(again.body.products.map((p: any) => p.action)).toEqual(['updated', 'unchanged']);
    expect(again.body.deactivated.map((p: any) => p.external_id)).toEqual(['shared-2']);
    expect(await listingOf(server, b.key, 'all')).toEqual(bBefore);

    // B's sync of a one-product catalogue deactivates B's shared-2 only.
    const bShrinks = await sync(server, b.key, [product('shared-1', { name: 'Beta One', price: 20, currency: null })]);
    expect(bShrinks.body.deactivated).toEqual([
      { external_id: 'shared-2', id: bBefore.find((p) => p.external_id === 'shared-2').id },
    ]);
    const aActive = await listingOf(server, a.key, 'active');
    expect(aActive.map((p) => [p.external_id, p.name]).sort()).toEqual([
      ['only-a', 'Cloud VPS only-a'],
      ['shared-1', 'Alpha One v2'],
    ]);

    // The operator's view agrees with each provider's own.
    const adminB = await admin(server, 'GET', `/hosts/${b.slug}/products?status=all`);
    expect(adminB.body.products.map((p: any) => p.id).sort()).toEqual(
      (await listingOf(server, b.key, 'all')).map((p) => p.id).sort(),
    );
    const detailsA = await admin(server, 'GET', `/hosts/${a.slug}`);
    expect(detailsA.body.host.product_counts).toEqual({ active: 2, inactive: 1 });
    const detailsB = await admin(server, 'GET', `/hosts/${b.slug}`);
    expect(detailsB.body.host.product_counts).toEqual({ active: 1, inactive: 1 });
  });

  it('shows a key only its own host’s products, in every status and on every page', async () => {
    const a = await onboard(server, 'Gamma Hosting');
    const b = await onboard(server, 'Delta Hosting');
    expect(
      (
        await sync(
          server,
          a.key,
          ['g-1', 'g-2', 'g-3'].map((id) => product(id)),
        )
      ).status,
    ).toBe(200);
    expect(
      (
        await sync(
          server,
          b.key,
          ['d-1', 'd-2'].map((id) => product(id)),
        )
      ).status,
    ).toBe(200);
    expect((await sync(server, a.key, [product('g-1')])).status).toBe(200);

    for (const status of ['active', 'inactive', 'all']) {
      for (const p of await listingOf(server, a.key, status)) expect(p.external_id).toMatch(/^g-/);
      for (const p of await listingOf(server, b.key, status)) expect(p.external_id).toMatch(/^d-/);
    }
    expect((await listingOf(server, a.key, 'all')).length).toBe(3);
    expect((await listingOf(server, b.key, 'all')).length).toBe(2);

    // A cursor taken from A's listing does not open B's products to A.
    const page = await call(server, 'GET', '/api/v1/products?status=all&limit=1', { token: b.key });
    expect(page.body.next_cursor).toEqual(expect.any(String));
    const crossed = await call(
      server,
      'GET',
      `/api/v1/products?status=all&limit=1000&cursor=${page.body.next_cursor}`,
      { token: a.key },
    );
    expect(crossed.status).toBe(200);
    for (const p of crossed.body.products) expect(p.external_id).toMatch(/^g-/);

    // The sync history of one host holds only its own runs.
    const runsA = await admin(server, 'GET', `/hosts/${a.slug}/syncs`);
    const runsB = await admin(server, 'GET', `/hosts/${b.slug}/syncs`);
    expect(runsA.body.runs).toHaveLength(2);
    expect(runsB.body.runs).toHaveLength(1);
  });
});
