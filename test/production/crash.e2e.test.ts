// A server killed (SIGKILL) while it applies a 50 000-product sync: the catalogue is the old one or the new one,
// whole, and the restarted server carries on.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';
import { until } from '../support/until.js';

const SIZE = 50_000;

interface ProductRow {
  external_id: string;
  id: string;
  status: string;
  name: string;
  category: string;
  price: string;
  currency: string;
  description: string | null;
  specs: string | null;
  pricing_tiers: string | null;
  setup_fee: string | null;
  contract_duration: string | null;
  features: string | null;
  datacenter_locations: string | null;
  fingerprint: string;
  created_at: Date;
  updated_at: Date;
  deactivated_at: Date | null;
}

async function listing(server: TestServer, slug: string): Promise<ProductRow[]> {
  return server.sql<ProductRow>(
    `SELECT p.external_id, p.id, p.status, p.name, p.category, p.price::text AS price, p.currency, p.description,
            p.specs::text AS specs, p.pricing_tiers::text AS pricing_tiers, p.setup_fee::text AS setup_fee,
            p.contract_duration, p.features::text AS features, p.datacenter_locations::text AS datacenter_locations,
            p.fingerprint, p.created_at, p.updated_at, p.deactivated_at
     FROM products p JOIN hosts h ON h.id = p.host_id
     WHERE h.slug = $1 ORDER BY p.external_id COLLATE "C"`,
    [slug],
  );
}

describe('SIGKILL in the middle of a 50 000-product sync (PostgreSQL)', () => {
  let server: TestServer;
  let host: Onboarded;
  let watcher: pg.Client;

  beforeAll(async () => {
    // Two applied syncs per window: the interrupted one must find a free slot, and so must the one after it.
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '2', DB_POOL_SIZE: '4', LOG_LEVEL: 'warn' } });
    host = await onboard(server, 'Crash Hosting');
    watcher = new pg.Client({ connectionString: server.databaseUrl! });
    await watcher.connect();
  });

  afterAll(async () => {
    await watcher?.end();
    await server?.stop();
  });

  it('leaves the previous catalogue or the new one, whole, and frees the slot if it was not applied', async () => {
    const previous = Array.from({ length: SIZE }, (_, i) => product(`p-${i}`, { price: (i % 500) + 0.99 }));
    expect((await sync(server, host.key, previous)).status).toBe(200);
    const before = await listing(server, host.slug);
    expect(before).toHaveLength(SIZE);

    // The new catalogue drops 1 000 products, renames and reprices 49 000, and adds 1 000.
    const next = Array.from({ length: SIZE }, (_, i) =>
      product(`p-${i + 1000}`, { name: `Renamed ${i + 1000}`, price: 5 }),
    );
    const inFlight = sync(server, host.key, next).then(
      (answer) => `answered ${answer.status}`,
      () => 'connection lost',
    );
    // Killed while PostgreSQL is executing one of the sync's bulk writes to the products table.
    let finished = false;
    void inFlight.then(() => (finished = true));
    await until(
      async () => {
        if (finished) throw new Error('the sync finished before it could be interrupted');
        const { rows } = await watcher.query(
          `SELECT 1 FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
             AND (query LIKE 'INSERT INTO products%' OR query LIKE 'COPY product%' OR query LIKE 'UPDATE products%')`,
        );
        return rows.length > 0;
      },
      60_000,
      'the sync to write products',
    );
    const outputBefore = server.output().length;
    await server.kill('SIGKILL');
    expect(await inFlight).toBe('connection lost');

    // The killed server's transaction ends (rolled back) once its backend notices the client is gone.
    await until(
      async () => {
        const { rows } = await watcher.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xid IS NOT NULL`,
        );
        return rows.length === 0;
      },
      30_000,
      'the orphaned transaction to end',
    );

    await server.restart();
    expect((await call(server, 'GET', '/readyz')).status).toBe(200);
    const restartLog = server.output().slice(outputBefore);
    expect(restartLog).not.toMatch(/"level":(50|60)/);

    const after = await listing(server, host.slug);
    const runs = await server.sql<{ applied: number }>(
      `SELECT count(*)::int AS applied FROM sync_runs r JOIN hosts h ON h.id = r.host_id WHERE h.slug = $1 AND NOT r.dry_run`,
      [host.slug],
    );
    const applied = runs[0]!.applied === 2;
    if (!applied) {
      expect(runs[0]!.applied).toBe(1);
      // Every row, every column, exactly as before.
      expect(after).toEqual(before);
    } else {
      // Every row is exactly what the new catalogue makes of it.
      expect(after).toHaveLength(SIZE + 1000);
      const old = new Map(before.map((row) => [row.external_id, row]));
      const sent = new Set(next.map((p) => p.external_id as string));
      for (const row of after) {
        if (sent.has(row.external_id)) {
          expect([row.status, row.name, row.price]).toEqual(['active', `Renamed ${row.external_id.slice(2)}`, '5']);
          if (old.has(row.external_id)) expect(row.id).toBe(old.get(row.external_id)!.id);
        } else {
          const was = old.get(row.external_id)!;
          expect(row).toEqual({
            ...was,
            status: 'inactive',
            updated_at: row.updated_at,
            deactivated_at: row.deactivated_at,
          });
          expect(row.deactivated_at).not.toBeNull();
        }
      }
    }

    // The rate limit counts only what was applied: a slot is left exactly when the killed sync left none behind.
    const again = await sync(server, host.key, [product('p-after-crash')]);
    expect(again.status, again.text).toBe(applied ? 429 : 200);
  }, 240_000);
});
