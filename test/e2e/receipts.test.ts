// Receipts (src/catalog/receipts.ts): a large catalogue sent again byte for byte is neither parsed nor planned
// against the products again. What a client sees must not change: every answer and every stored product is what
// it would be without them, whatever happened to the host's products in between.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync } from '../support/api.js';
import { describeOnPostgres, STORES, startServer, type TestServer } from '../support/server.js';

/** Enough products for a body past RECEIPTS_MIN_BODY_BYTES (64 KiB): about 500 bytes each. */
const COUNT = 200;

const catalogue = (prefix: string) =>
  Array.from({ length: COUNT }, (_, k) => product(`${prefix}-${k}`, { price: k + 0.5 }));

async function listing(server: TestServer, key: string): Promise<Map<string, any>> {
  const answer = await call(server, 'GET', '/api/v1/products?status=all&limit=1000', { token: key });
  expect(answer.status).toBe(200);
  return new Map(answer.body.products.map((p: any) => [p.external_id, p]));
}

function actions(answer: { body: any }): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const p of answer.body.products) counts[p.action] = (counts[p.action] ?? 0) + 1;
  return counts;
}

describe.each(STORES)('receipts (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(store, { env: { SYNC_MAX_PER_WINDOW: '1000' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('answers a catalogue sent again, in the same or another order, as unchanged, with the same ids', async () => {
    const host = await onboard(server, `Receipts again ${store}`);
    const products = catalogue('again');
    const created = await sync(server, host.key, products);
    expect(created.status).toBe(200);
    expect(created.body.summary).toMatchObject({ received: COUNT, created: COUNT });
    const ids = new Map(created.body.products.map((p: any) => [p.external_id, p.id]));

    for (const sent of [products, [...products].reverse()]) {
      const again = await sync(server, host.key, sent);
      expect(again.status).toBe(200);
      expect(again.body.summary).toEqual({
        received: COUNT,
        created: 0,
        updated: 0,
        unchanged: COUNT,
        reactivated: 0,
        deactivated: 0,
      });
      expect(again.body.products.map((p: any) => p.external_id)).toEqual(sent.map((p) => p.external_id));
      for (const p of again.body.products) expect(p.id).toBe(ids.get(p.external_id));
    }
    const held = await listing(server, host.key);
    expect([...held.values()].every((p) => p.status === 'active')).toBe(true);
  });

  it('writes back what a sync without receipts changed, when the receipted catalogue comes again', async () => {
    const host = await onboard(server, `Receipts stale ${store}`);
    const products = catalogue('stale');
    expect((await sync(server, host.key, products)).status).toBe(200);
    // A small catalogue (no receipts): one product changed, every other one deactivated.
    const small = await sync(server, host.key, [{ ...products[7]!, price: 1234, name: 'Renamed' }]);
    expect(small.body.summary).toMatchObject({ updated: 1, deactivated: COUNT - 1 });

    const back = await sync(server, host.key, products);
    expect(back.status).toBe(200);
    expect(back.body.summary).toEqual({
      received: COUNT,
      created: 0,
      updated: 1,
      unchanged: 0,
      reactivated: COUNT - 1,
      deactivated: 0,
    });
    const held = await listing(server, host.key);
    for (const sent of products) {
      const stored = held.get(sent.external_id as string);
      expect(stored.status).toBe('active');
      expect(stored.price).toBe(sent.price);
      expect(stored.name).toBe(sent.name);
      expect(stored.features).toEqual(sent.features);
    }
    // And once they are written back, the catalogue is unchanged again.
    expect((await sync(server, host.key, products)).body.summary).toMatchObject({ unchanged: COUNT });
  });

  it('deactivates what a receipted catalogue leaves out, and reactivates it when it comes back', async () => {
    const host = await onboard(server, `Receipts left out ${store}`);
    const products = catalogue('out');
    expect((await sync(server, host.key, products)).status).toBe(200);
    const fewer = await sync(server, host.key, products.slice(10));
    expect(fewer.body.summary).toMatchObject({ unchanged: COUNT - 10, deactivated: 10 });
    const all = await sync(server, host.key, products);
    expect(all.body.summary).toMatchObject({ unchanged: COUNT - 10, reactivated: 10 });
    expect(actions(all)).toEqual({ reactivated: 10, unchanged: COUNT - 10 });
    expect([...(await listing(server, host.key)).values()].every((p) => p.status === 'active')).toBe(true);
  });

  it('refuses a receipted product sent twice as a duplicate, and changes nothing', async () => {
    const host = await onboard(server, `Receipts twice ${store}`);
    const products = catalogue('twice');
    expect((await sync(server, host.key, products)).status).toBe(200);
    const refused = await sync(server, host.key, [...products, products[3]]);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      { pointer: `/products/${COUNT}/external_id`, code: 'duplicate', detail: 'duplicate of /products/3/external_id' },
    ]);
    expect((await sync(server, host.key, products)).body.summary).toMatchObject({ unchanged: COUNT });
  });

  it('validates again once the category registry changed, and still answers unchanged', async () => {
    const host = await onboard(server, `Receipts registry ${store}`);
    const products = catalogue('registry');
    expect((await sync(server, host.key, products)).status).toBe(200);
    const slug = `receipts_${store}`;
    expect((await admin(server, 'POST', '/categories', { slug, label: 'Receipts test' })).status).toBe(201);
    expect((await sync(server, host.key, products)).body.summary).toMatchObject({ unchanged: COUNT });
    const moved = products.map((p, k) => (k === 0 ? { ...p, category: slug } : p));
    const answer = await sync(server, host.key, moved);
    expect(answer.body.summary).toMatchObject({ updated: 1, unchanged: COUNT - 1 });
    expect((await listing(server, host.key)).get('registry-0').category).toBe(slug);
  });

  it('validates a dry run with the receipts, and changes nothing, receipts included', async () => {
    const host = await onboard(server, `Receipts dry ${store}`);
    const products = catalogue('dry');
    expect((await sync(server, host.key, products)).status).toBe(200);
    const dry = await sync(server, host.key, products.slice(1), '?dry_run=true');
    expect(dry.body.summary).toMatchObject({ unchanged: COUNT - 1, deactivated: 1 });
    expect((await listing(server, host.key)).get('dry-0').status).toBe('active');
    expect((await sync(server, host.key, products)).body.summary).toMatchObject({ unchanged: COUNT });
  });
});

describe.each(STORES)('receipts and Idempotency-Key (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(store, { env: { SYNC_MAX_PER_WINDOW: '1000' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  // New receipts are written after the last batch, so the answer kept for the key is stored before the commit.
  it('keeps the answer of a sync that writes receipts for its key, and replays it', async () => {
    const host = await onboard(server, `Receipts key ${store}`);
    const products = catalogue('key');
    const send = () =>
      call(server, 'POST', '/api/v1/sync/products', {
        token: host.key,
        json: { products },
        headers: { 'idempotency-key': `receipts-${store}` },
      });
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.body.summary).toMatchObject({ created: COUNT });
    const retry = await send();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect((await sync(server, host.key, products)).body.summary).toMatchObject({ unchanged: COUNT });
  });
});

describeOnPostgres('receipts and the host lock (PostgreSQL store)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '1000' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps the stored receipts current only while the products are what they describe', async () => {
    const host = await onboard(server, 'Receipts state');
    const products = catalogue('state');
    const created = await sync(server, host.key, products);
    const [row] = await server.sql<any>(
      'SELECT r.current, r.written_by FROM sync_receipts r JOIN hosts h ON h.id = r.host_id WHERE h.slug = $1',
      [host.slug],
    );
    expect(row).toEqual({ current: true, written_by: created.body.sync_id });
    // A small catalogue changes the products without receipts: they stop being current, and are kept.
    await sync(server, host.key, products.slice(0, 3));
    expect(
      await server.sql('SELECT current, written_by FROM sync_receipts WHERE written_by = $1', [created.body.sync_id]),
    ).toEqual([{ current: false, written_by: created.body.sync_id }]);
    expect((await sync(server, host.key, products)).body.summary).toMatchObject({
      unchanged: 3,
      reactivated: COUNT - 3,
    });
    expect(await server.sql('SELECT current FROM sync_receipts WHERE written_by = $1', [created.body.sync_id])).toEqual(
      [{ current: true }],
    );
    // A dry run of another catalogue leaves them as they are.
    expect((await sync(server, host.key, products.slice(1), '?dry_run=true')).status).toBe(200);
    expect(await server.sql('SELECT current FROM sync_receipts WHERE written_by = $1', [created.body.sync_id])).toEqual(
      [{ current: true }],
    );
  });

  it('stores receipts of any length and content exactly: a line per product, in payload order', async () => {
    const host = await onboard(server, 'Receipts content');
    // More than one piece of the COPY that writes them (1024 receipts each), external_ids that COPY must escape.
    const products = Array.from({ length: 1100 }, (_, k) => product(`back\\slash "${k}" \\N ü`, { price: k }));
    const created = await sync(server, host.key, products);
    expect(created.status).toBe(200);
    // A row per piece of at most 1 024 lines, in order.
    const pieces = await server.sql<any>(
      'SELECT p.piece, p.text FROM sync_receipt_pieces p JOIN hosts h ON h.id = p.host_id WHERE h.slug = $1 ORDER BY p.piece',
      [host.slug],
    );
    expect(pieces.map((p: any) => p.piece)).toEqual([0, 1]);
    expect(pieces.map((p: any) => p.text.split('\n').length - 1)).toEqual([1024, 76]);
    const lines = pieces
      .map((p: any) => p.text)
      .join('')
      .split('\n');
    expect(lines.pop()).toBe('');
    const fields = lines.map((line: string) => line.split('\t'));
    expect(fields.map((f: string[]) => f[3])).toEqual(products.map((p) => p.external_id));
    expect(fields.map((f: string[]) => f[2])).toEqual(created.body.products.map((p: any) => p.id));
    expect((await sync(server, host.key, products)).body.summary).toMatchObject({ unchanged: 1100 });
  });

  it('plans against the products when the receipts it read were rewritten while it waited for the host', async () => {
    const host = await onboard(server, 'Receipts race');
    const products = catalogue('race');
    expect((await sync(server, host.key, products)).status).toBe(200);

    // Hold the host's lock, as a concurrent sync would, and do what that sync would do: change a product and write
    // other receipts. The waiting sync read the first receipts before the lock.
    const client = new pg.Client({ connectionString: server.databaseUrl! });
    await client.connect();
    try {
      await client.query('BEGIN');
      const [{ id: hostId }] = (await client.query('SELECT id FROM hosts WHERE slug = $1 FOR UPDATE', [host.slug]))
        .rows;
      const waiting = sync(server, host.key, products);
      // The sync has read its receipts and waits for the lock once it has a transaction of its own on the host.
      let waited = false;
      for (let k = 0; k < 400 && !waited; k++) {
        const { rows } = await client.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        waited = rows[0].n > 0;
        if (!waited) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(waited).toBe(true);
      await client.query(
        `UPDATE products SET status = 'inactive', deactivated_at = now() WHERE host_id = $1 AND external_id = 'race-5'`,
        [hostId],
      );
      await client.query(`UPDATE sync_receipts SET written_by = 'syn_other', current = true WHERE host_id = $1`, [
        hostId,
      ]);
      await client.query('COMMIT');

      const answer = await waiting;
      expect(answer.status).toBe(200);
      expect(answer.body.summary).toMatchObject({ unchanged: COUNT - 1, reactivated: 1 });
      expect(answer.body.products[5]).toMatchObject({ external_id: 'race-5', action: 'reactivated' });
      // The receipts it found are not the ones it read: they no longer describe the products.
      expect((await client.query('SELECT current FROM sync_receipts WHERE host_id = $1', [hostId])).rows).toEqual([
        { current: false },
      ]);
    } finally {
      await client.end();
    }
    expect((await listing(server, host.key)).get('race-5').status).toBe('active');
  });
});

describeOnPostgres('receipts that no longer hold (postgres store)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '1000' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('are dropped, the catalogue validated in full, and the sync answered as without them', async () => {
    const host = await onboard(server, 'Receipts heal');
    const products = catalogue('heal');
    expect((await sync(server, host.key, products)).status).toBe(200);
    const before = await listing(server, host.key);
    // A receipt altered behind the server's back: its fingerprint no longer what its product's bytes give, and
    // the receipts no longer marked as describing the products, so that the sync plans against the stored rows.
    const stored = await server.sql<{ text: string }>(
      `SELECT p.text FROM sync_receipt_pieces p JOIN hosts h ON h.id = p.host_id WHERE h.slug = $1 AND p.piece = 0`,
      [host.slug],
    );
    expect(stored).toHaveLength(1);
    const lines = stored[0]!.text.split('\n');
    const [digest, , id, externalId] = lines[0]!.split('\t');
    lines[0] = [digest, '0'.repeat(32), id, externalId].join('\t');
    await server.sql(
      `WITH host AS (SELECT id FROM hosts WHERE slug = $1),
            piece AS (UPDATE sync_receipt_pieces SET text = $2 WHERE host_id = (SELECT id FROM host) AND piece = 0)
       UPDATE sync_receipts SET current = false WHERE host_id = (SELECT id FROM host)`,
      [host.slug, lines.join('\n')],
    );

    const again = await sync(server, host.key, products);
    expect(again.status, again.text).toBe(200);
    expect(again.body.summary).toEqual({
      received: COUNT,
      created: 0,
      updated: 0,
      unchanged: COUNT,
      reactivated: 0,
      deactivated: 0,
    });
    const after = await listing(server, host.key);
    for (const [externalId, held] of before) expect(after.get(externalId)).toEqual(held);
    // Rewritten: every receipt holds again, and the next sync of the same catalogue uses them.
    const healed = await server.sql<{ receipts: string; current: boolean }>(
      `SELECT (SELECT string_agg(p.text, '' ORDER BY p.piece) FROM sync_receipt_pieces p WHERE p.host_id = r.host_id) AS receipts, r.current
       FROM sync_receipts r JOIN hosts h ON h.id = r.host_id WHERE h.slug = $1`,
      [host.slug],
    );
    expect(healed[0]!.receipts).not.toContain('0'.repeat(32));
    expect(healed[0]!.current).toBe(true);
    const third = await sync(server, host.key, products);
    expect(third.status).toBe(200);
    expect(third.body.summary.unchanged).toBe(COUNT);
    expect(server.output()).toContain('a stored receipt no longer holds');
  });
});
