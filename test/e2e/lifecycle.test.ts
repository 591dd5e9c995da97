// A product's life through several syncs (contract sections 2, 4 and 7): created, updated, unchanged,
// deactivated, reactivated; normalization as the listing shows it; status filter and cursor paging.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Answer } from '../support/api.js';
import { STORES, startServer, type TestServer } from '../support/server.js';
import { expectProblem, listingOf } from './assertions.js';

function actions(answer: Answer): Record<string, string> {
  expect(answer.status, answer.text).toBe(200);
  return Object.fromEntries(answer.body.products.map((p: any) => [p.external_id, p.action]));
}

function idsOf(answer: Answer): Record<string, string> {
  return Object.fromEntries(answer.body.products.map((p: any) => [p.external_id, p.id]));
}

function byExternalId(products: any[]): Record<string, any> {
  return Object.fromEntries(products.map((p) => [p.external_id, p]));
}

async function pages(server: TestServer, key: string, query: string): Promise<{ sizes: number[]; ids: string[] }> {
  const sizes: number[] = [];
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 20; guard++) {
    const answer: Answer = await call(
      server,
      'GET',
      `/api/v1/products?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { token: key },
    );
    expect(answer.status, answer.text).toBe(200);
    sizes.push(answer.body.products.length);
    ids.push(...answer.body.products.map((p: any) => p.id));
    cursor = answer.body.next_cursor;
    if (cursor === null) return { sizes, ids };
    expect(typeof cursor).toBe('string');
  }
  throw new Error('paging did not end');
}

describe.each(STORES)('product lifecycle (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(store, { env: { SYNC_MAX_PER_WINDOW: '1000' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps ids through create, update, deactivate and reactivate', async () => {
    const host = await onboard(server, 'Lifecycle Hosting', { default_currency: 'EUR' });

    const first = await sync(server, host.key, [product('vps-a'), product('vps-b'), product('vps-c')]);
    expect(actions(first)).toEqual({ 'vps-a': 'created', 'vps-b': 'created', 'vps-c': 'created' });
    const ids = idsOf(first);
    const created = byExternalId(await listingOf(server, host.key));
    for (const p of Object.values(created)) {
      expect(p.status).toBe('active');
      expect(p.deactivated_at).toBeNull();
      expect(p.updated_at).toBe(p.created_at);
    }

    // vps-c comes back with only its required fields: every optional field is cleared.
    const second = await sync(server, host.key, [
      product('vps-a', { price: 12.49 }),
      product('vps-b'),
      { external_id: 'vps-c', name: 'Bare VPS', category: 'vps_cloud', price: 5 },
    ]);
    expect(actions(second)).toEqual({ 'vps-a': 'updated', 'vps-b': 'unchanged', 'vps-c': 'updated' });
    expect(idsOf(second)).toEqual(ids);
    expect(second.body.summary).toEqual({
      received: 3,
      created: 0,
      updated: 2,
      unchanged: 1,
      reactivated: 0,
      deactivated: 0,
    });
    const updated = byExternalId(await listingOf(server, host.key));
    expect(updated['vps-a'].price).toBe(12.49);
    expect(updated['vps-b']).toEqual(created['vps-b']);
    expect(updated['vps-c']).toEqual({
      id: ids['vps-c'],
      external_id: 'vps-c',
      name: 'Bare VPS',
      category: 'vps_cloud',
      price: 5,
      currency: 'EUR',
      description: null,
      specs: null,
      pricing_tiers: null,
      setup_fee: null,
      contract_duration: null,
      features: null,
      datacenter_locations: null,
      stock: null,
      status: 'active',
      created_at: created['vps-c'].created_at,
      updated_at: expect.any(String),
      deactivated_at: null,
    });
    expect(Date.parse(updated['vps-c'].updated_at)).toBeGreaterThan(Date.parse(created['vps-c'].updated_at));

    // The catalogue shrinks to vps-a: the others are deactivated, kept and no longer listed as active.
    const third = await sync(server, host.key, [product('vps-a', { price: 12.49 })]);
    expect(actions(third)).toEqual({ 'vps-a': 'unchanged' });
    expect(third.body.deactivated).toEqual([
      { external_id: 'vps-b', id: ids['vps-b'] },
      { external_id: 'vps-c', id: ids['vps-c'] },
    ]);
    expect(third.body.summary).toEqual({
      received: 1,
      created: 0,
      updated: 0,
      unchanged: 1,
      reactivated: 0,
      deactivated: 2,
    });
    expect((await listingOf(server, host.key, 'active')).map((p) => p.external_id)).toEqual(['vps-a']);
    const inactive = byExternalId(await listingOf(server, host.key, 'inactive'));
    expect(Object.keys(inactive).sort()).toEqual(['vps-b', 'vps-c']);
    for (const p of Object.values(inactive)) {
      expect(p.status).toBe('inactive');
      expect(new Date(p.deactivated_at).toISOString()).toBe(p.deactivated_at);
      expect(p.id).toBe(ids[p.external_id]);
    }
    // A deactivated product keeps its content.
    expect(inactive['vps-c'].name).toBe('Bare VPS');

    // Absent again: nothing more happens to them.
    const fourth = await sync(server, host.key, [product('vps-a', { price: 12.49 })]);
    expect(fourth.body.deactivated).toEqual([]);
    expect(fourth.body.summary.deactivated).toBe(0);

    // Back in the payload: reactivated with the payload's content (vps-c now differs, vps-b does not).
    const fifth = await sync(server, host.key, [
      product('vps-a', { price: 12.49 }),
      product('vps-b'),
      product('vps-c', { name: 'Revived VPS' }),
    ]);
    expect(actions(fifth)).toEqual({ 'vps-a': 'unchanged', 'vps-b': 'reactivated', 'vps-c': 'reactivated' });
    expect(idsOf(fifth)).toEqual(ids);
    expect(fifth.body.summary).toEqual({
      received: 3,
      created: 0,
      updated: 0,
      unchanged: 1,
      reactivated: 2,
      deactivated: 0,
    });
    const revived = byExternalId(await listingOf(server, host.key, 'active'));
    expect(Object.keys(revived).sort()).toEqual(['vps-a', 'vps-b', 'vps-c']);
    expect(revived['vps-c']).toMatchObject({
      name: 'Revived VPS',
      status: 'active',
      deactivated_at: null,
      currency: 'USD',
    });
    expect(revived['vps-c'].specs).toEqual({ cpu_cores: '2', ram_gb: '4', disk_gb: '80', ipv6: 'true' });
    expect(revived['vps-b'].created_at).toBe(created['vps-b'].created_at);
    expect(await listingOf(server, host.key, 'inactive')).toEqual([]);
  });

  it('shows normalized values in the listing', async () => {
    const host = await onboard(server, 'Normalizing Hosting', { default_currency: 'EUR' });
    // Parsed from text so that "__proto__" is an own key of the payload, as it is for any JSON client.
    const specs = JSON.parse(
      '{"cpu_cores": 4, "ipv6": true, "ram_gb": 7.5, "os": "Debian", "__proto__": "polluted?", "constructor": "c"}',
    );
    const answer = await sync(server, host.key, [
      {
        external_id: 'norm-1',
        name: '   Padded VPS \t',
        category: 'vps_managed',
        price: 19.99,
        currency: 'gbp',
        description: '  kept as given  ',
        specs,
        pricing_tiers: [
          { period: 'Annually', price: 199.9 },
          { period: '1 month', price: 19.99 },
          { period: 'per hour', price: 0.03 },
          { period: 'Lunar cycle', price: 18 },
        ],
        setup_fee: 0.1,
        contract_duration: '12 months',
        features: ['Backups', 'IPv6'],
        datacenter_locations: ['Helsinki'],
      },
      product('norm-2', { currency: undefined, contract_duration: '1 year', price: 1000000000 }),
      product('norm-3', { currency: null, contract_duration: 'P2W', price: 0 }),
      product('norm-4', { contract_duration: 'none', price: 0.000001 }),
    ]);
    expect(answer.status, answer.text).toBe(200);

    const listed = byExternalId(await listingOf(server, host.key));
    const first = listed['norm-1'];
    expect(first).toEqual({
      id: answer.body.products[0].id,
      external_id: 'norm-1',
      name: 'Padded VPS',
      category: 'vps_managed',
      price: 19.99,
      currency: 'GBP',
      description: '  kept as given  ',
      specs: JSON.parse(
        '{"cpu_cores": "4", "ipv6": "true", "ram_gb": "7.5", "os": "Debian", "__proto__": "polluted?", "constructor": "c"}',
      ),
      // Each period as sent, with the canonical period it names; one the directory does not know names none.
      pricing_tiers: [
        { period: 'Annually', price: 199.9, canonical_period: 'annually' },
        { period: '1 month', price: 19.99, canonical_period: 'monthly' },
        { period: 'per hour', price: 0.03, canonical_period: 'hourly' },
        { period: 'Lunar cycle', price: 18, canonical_period: null },
      ],
      setup_fee: 0.1,
      contract_duration: 'P12M',
      features: ['Backups', 'IPv6'],
      datacenter_locations: ['Helsinki'],
      stock: null,
      status: 'active',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      deactivated_at: null,
    });
    // "__proto__" came back as plain data, not as the object's prototype.
    expect(Object.getOwnPropertyDescriptor(first.specs, '__proto__')?.value).toBe('polluted?');
    expect(Object.getPrototypeOf(first.specs)).toBe(Object.prototype);
    // JSON numbers with the exact decimals, not their float noise.
    const raw = await call(server, 'GET', '/api/v1/products?limit=1000', { token: host.key });
    expect(raw.text).toContain('"price":19.99');
    expect(raw.text).toContain('"setup_fee":0.1');
    expect(raw.text).toContain('"price":1000000000');
    expect(raw.text).not.toMatch(/"price":"/);

    expect(listed['norm-2']).toMatchObject({ currency: 'EUR', contract_duration: 'P1Y', price: 1000000000 });
    expect(listed['norm-3']).toMatchObject({ currency: 'EUR', contract_duration: 'P2W', price: 0 });
    expect(listed['norm-4']).toMatchObject({ currency: 'USD', contract_duration: 'none', price: 0.000001 });
  });

  it('accepts a product of only name, external_id and category, and a price that comes and goes is an update', async () => {
    const host = await onboard(server, 'Minimal Hosting');
    // The original interface document's own words: "A minimal valid body holds one product with only those three fields."
    const minimal = { name: 'Minimal', external_id: 'min-1', category: 'vps_cloud' };
    const created = await sync(server, host.key, [minimal]);
    expect(created.status, created.text).toBe(200);
    expect(created.body.products).toEqual([
      { external_id: 'min-1', id: expect.stringMatching(/^prd_/), action: 'created' },
    ]);
    const [stored] = await listingOf(server, host.key);
    expect(stored).toMatchObject({
      external_id: 'min-1',
      name: 'Minimal',
      price: null,
      currency: 'USD',
      pricing_tiers: null,
    });

    const priced = await sync(server, host.key, [{ ...minimal, price: 5 }]);
    expect(actions(priced)).toEqual({ 'min-1': 'updated' });
    const unpriced = await sync(server, host.key, [{ ...minimal, price: null }]);
    expect(actions(unpriced)).toEqual({ 'min-1': 'updated' });
    expect((await listingOf(server, host.key))[0]).toMatchObject({ price: null });
    const again = await sync(server, host.key, [minimal]);
    expect(actions(again)).toEqual({ 'min-1': 'unchanged' });
  });

  it('writes nothing when the same catalogue is sent again', async () => {
    const host = await onboard(server, 'Idle Hosting');
    const catalogue = [
      product('same-1'),
      product('same-2', { contract_duration: '12 months', currency: 'USD' }),
      product('same-3'),
    ];
    const first = await sync(server, host.key, catalogue);
    expect(first.status).toBe(200);
    const before = await listingOf(server, host.key, 'all');
    const rowVersions = () =>
      server.sql(
        `SELECT p.external_id, p.xmin::text AS version FROM products p JOIN hosts h ON h.id = p.host_id
         WHERE h.slug = $1 ORDER BY p.external_id`,
        [host.slug],
      );
    const rowsBefore = store === 'postgres' ? await rowVersions() : [];
    if (store === 'postgres') expect(rowsBefore).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, 20));

    // The same catalogue, spelled differently where normalization makes it equal.
    const again = await sync(server, host.key, [
      product('same-1', { name: `  ${catalogue[0]!.name}  ` }),
      product('same-2', { contract_duration: 'P12M', currency: 'usd' }),
      product('same-3', { specs: { cpu_cores: '2', ram_gb: '4', disk_gb: '80', ipv6: 'true' } }),
    ]);
    expect(actions(again)).toEqual({ 'same-1': 'unchanged', 'same-2': 'unchanged', 'same-3': 'unchanged' });
    expect(again.body.summary).toEqual({
      received: 3,
      created: 0,
      updated: 0,
      unchanged: 3,
      reactivated: 0,
      deactivated: 0,
    });
    expect(again.body.deactivated).toEqual([]);
    expect(await listingOf(server, host.key, 'all')).toEqual(before);
    if (store === 'postgres') {
      expect(await rowVersions()).toEqual(rowsBefore);
    }
  });

  it('filters by status and pages with a cursor without gaps or repeats', async () => {
    const host = await onboard(server, 'Paging Hosting');
    const five = ['p-1', 'p-2', 'p-3', 'p-4', 'p-5'].map((id) => product(id));
    const first = await sync(server, host.key, five);
    expect(first.status).toBe(200);
    const allIds = first.body.products.map((p: any) => p.id).sort();

    const active = await pages(server, host.key, 'limit=2');
    expect(active.sizes).toEqual([2, 2, 1]);
    expect(active.ids).toEqual(allIds);

    // p-3 leaves the catalogue: 4 active (an exact multiple of the page size), 1 inactive, 5 in all.
    expect(
      (
        await sync(
          server,
          host.key,
          five.filter((p) => p.external_id !== 'p-3'),
        )
      ).status,
    ).toBe(200);
    const p3 = first.body.products.find((p: any) => p.external_id === 'p-3').id;

    const activeNow = await pages(server, host.key, 'status=active&limit=2');
    expect(activeNow.sizes).toEqual([2, 2]);
    expect(activeNow.ids).toEqual(allIds.filter((id: string) => id !== p3));
    expect(await pages(server, host.key, 'status=inactive&limit=2')).toEqual({ sizes: [1], ids: [p3] });
    const all = await pages(server, host.key, 'status=all&limit=2');
    expect(all.sizes).toEqual([2, 2, 1]);
    expect(all.ids).toEqual(allIds);
    expect(new Set(all.ids).size).toBe(5);

    // Default: active only, one page.
    const plain = await call(server, 'GET', '/api/v1/products', { token: host.key });
    expect(plain.body.products).toHaveLength(4);
    expect(plain.body.next_cursor).toBeNull();
    for (const p of plain.body.products) expect(p.status).toBe('active');

    for (const query of [
      'cursor=not-a-cursor',
      `cursor=${Buffer.from('prd_hello').toString('base64url')}`,
      'status=deleted',
      'limit=0',
      'limit=1001',
    ]) {
      const refused = await call(server, 'GET', `/api/v1/products?${query}`, { token: host.key });
      const problem = expectProblem(refused, 'VALIDATION_FAILED', '/api/v1/products');
      expect(problem.errors.length).toBeGreaterThan(0);
    }
  });

  if (store === 'postgres') {
    it('stores exact decimals and fingerprints, and leaves unchanged rows alone', async () => {
      const host = await onboard(server, 'Rows Hosting');
      const first = await sync(server, host.key, [
        product('row-1', { price: 19.99, setup_fee: 0.3 }),
        product('row-2', { price: 0.1 }),
        product('row-3'),
      ]);
      expect(first.status).toBe(200);
      const [hostRow] = await server.sql<{ id: string }>('SELECT id FROM hosts WHERE slug = $1', [host.slug]);

      const types = await server.sql<{ column_name: string; data_type: string }>(
        `SELECT column_name, data_type FROM information_schema.columns
         WHERE table_name = 'products' AND column_name IN ('price', 'setup_fee') ORDER BY column_name`,
      );
      expect(types).toEqual([
        { column_name: 'price', data_type: 'numeric' },
        { column_name: 'setup_fee', data_type: 'numeric' },
      ]);

      type Row = {
        external_id: string;
        id: string;
        status: string;
        price: string;
        setup_fee: string | null;
        fingerprint: string;
        version: string;
      };
      type Versions = { before: Row; after: Row };
      const read = () =>
        server.sql<Row>(
          `SELECT external_id, id, status, price::text AS price, setup_fee::text AS setup_fee, fingerprint, xmin::text AS version
           FROM products WHERE host_id = $1 ORDER BY external_id`,
          [hostRow!.id],
        );
      const before = await read();
      expect(before.map((r) => [r.external_id, r.price, r.setup_fee])).toEqual([
        ['row-1', '19.99', '0.3'],
        ['row-2', '0.1', '0'],
        ['row-3', '9.99', '0'],
      ]);
      expect(before.map((r) => r.id)).toEqual(first.body.products.map((p: any) => p.id));
      for (const row of before) expect(row.fingerprint.length).toBeGreaterThan(0);
      // row-3 and row-2 differ only in price: their fingerprints differ.
      expect(new Set(before.map((r) => r.fingerprint)).size).toBe(3);

      const second = await sync(server, host.key, [
        product('row-1', { price: 19.99, setup_fee: 0.3 }),
        product('row-2', { price: 0.2 }),
      ]);
      expect(actions(second)).toEqual({ 'row-1': 'unchanged', 'row-2': 'updated' });
      const after = await read();
      expect(after.map((r) => r.external_id)).toEqual(['row-1', 'row-2', 'row-3']);
      const [row1, row2, row3] = [0, 1, 2].map((i) => ({ before: before[i]!, after: after[i]! })) as [
        Versions,
        Versions,
        Versions,
      ];
      // Unchanged: the row was not written at all (same row version).
      expect(row1.after).toEqual(row1.before);
      expect(row2.after.price).toBe('0.2');
      expect(row2.after.fingerprint).not.toBe(row2.before.fingerprint);
      expect(row2.after.version).not.toBe(row2.before.version);
      expect(row3.after.status).toBe('inactive');
      expect(row3.after.fingerprint).toBe(row3.before.fingerprint);

      const runs = await server.sql<{
        created: number;
        updated: number;
        unchanged: number;
        deactivated: number;
        dry_run: boolean;
      }>('SELECT created, updated, unchanged, deactivated, dry_run FROM sync_runs WHERE host_id = $1 ORDER BY id', [
        hostRow!.id,
      ]);
      expect(runs).toEqual([
        { created: 3, updated: 0, unchanged: 0, deactivated: 0, dry_run: false },
        { created: 0, updated: 1, unchanged: 1, deactivated: 1, dry_run: false },
      ]);
    });
  }
});
