// A rates import and a sync at the same moment: whichever commits first, no product keeps a EUR price derived from
// a rate that was replaced. On PostgreSQL the two really overlap (the test waits until one waits for the other); the
// embedded store runs one transaction at a time, where both orders must hold as well.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/catalog/ids.js';
import type { WrittenProduct } from '../../src/catalog/plan.js';
import type { NormalizedProduct } from '../../src/catalog/types.js';
import { validateCatalogue } from '../../src/catalog/validate.js';
import type { Database } from '../../src/store/db.js';
import { insertHost } from '../../src/store/hosts.js';
import { importRates } from '../../src/store/rates.js';
import { inSyncTransaction } from '../../src/store/sync.js';
import { openTestDatabase } from '../support/databases.js';
import { STORES } from '../support/server.js';
import { until } from '../support/until.js';

function written(externalId: string, price: number): WrittenProduct {
  const result = validateCatalogue(
    {
      products: [
        { external_id: externalId, name: `Plan ${externalId}`, category: 'vps_cloud', price, currency: 'GBP' },
      ],
    },
    { categories: new Set(['vps_cloud']), defaultCurrency: 'GBP', maxProducts: 10 },
  );
  if (!result.ok) throw new Error('the test product does not validate');
  return { external_id: externalId, id: newId('prd'), content: result.products[0] as NormalizedProduct };
}

/** Runs a sync creating `product`; `between` runs once the transaction holds its host (and the rates lock). */
function syncCreating(db: Database, hostId: number, product: WrittenProduct, between: () => Promise<void>) {
  const syncId = newId('syn');
  return inSyncTransaction(db, { syncId, hostId, keyId: 'key_none', lockTimeoutMs: 30_000 }, async (tx) => {
    await tx.takeHost({ window: { dryRun: false, seconds: 300, max: 100 }, claim: null, receiptsWrittenBy: null });
    await between();
    return tx.write(
      { created: [product], changed: [], deactivated: [] },
      {
        dryRun: false,
        requestId: 'req_test',
        summary: { received: 1, created: 1, updated: 0, unchanged: 0, reactivated: 0, deactivated: 0 },
        plan: {
          products: [{ external_id: product.external_id, id: product.id, action: 'created', product: product.content }],
          deactivated: [],
        },
        startedAt: new Date(),
      },
      { receipts: null, answerFollows: false },
    );
  });
}

async function basePrice(db: Database, id: string): Promise<number | null> {
  const { rows } = await db.query<{ base: string | null }>(
    'SELECT base_monthly_price::text AS base FROM products WHERE id = $1',
    [id],
  );
  return rows[0]?.base === null || rows[0] === undefined ? null : Number(rows[0].base);
}

/** Whether some transaction waits for a lock on the rates table. */
async function someoneWaitsForRates(db: Database): Promise<boolean> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'exchange_rates'::regclass`,
  );
  return Number(rows[0]?.n ?? 0) > 0;
}

const day = (date: string, gbp: string) => [{ date, rates: new Map([['GBP', gbp]]) }];

describe.each(STORES)('a rates import racing a sync (%s store)', (store) => {
  let db: Database;
  let close: () => Promise<void>;
  let hostId: number;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
    hostId = (await insertHost(db, { slug: `race-${store}`, name: 'Race', default_currency: 'GBP' })).id;
    await importRates(db, day('2026-11-20', '0.5'), 'test');
  });

  afterAll(async () => {
    await close?.();
  });

  it('a sync that read the old rate finishes first, then the import converts its new product too', async () => {
    const product = written('sync-first', 10);
    // Set while the sync runs: held in an object, since the compiler cannot see a closure assign a variable.
    const during: { imported: Promise<unknown> | null } = { imported: null };
    const outcome = await syncCreating(db, hostId, product, async () => {
      // The sync read GBP at 0.5 (10 GBP = 20 EUR); now the rate changes while its product is not yet written.
      const imported = importRates(db, day('2026-11-21', '0.8'), 'test');
      during.imported = imported;
      if (store === 'postgres') {
        let done = false;
        void imported.then(
          () => (done = true),
          () => (done = true),
        );
        await until(
          async () => done || (await someoneWaitsForRates(db)),
          30_000,
          'the import to wait for the sync, or to finish',
        );
      }
    });
    expect(outcome.kind).toBe('done');
    expect(during.imported).not.toBeNull();
    await during.imported;
    // 10 GBP at 0.8 = 12.5 EUR: the import came after the sync and converted its product.
    expect(await basePrice(db, product.id)).toBe(12.5);
  });

  it('a sync that comes while an import holds the rates reads the new rate', async () => {
    const product = written('import-first', 10);
    if (store === 'embedded') {
      // One transaction at a time: the import commits, then the sync reads.
      await importRates(db, day('2026-11-22', '0.4'), 'test');
      expect((await syncCreating(db, hostId, product, async () => {})).kind).toBe('done');
      expect(await basePrice(db, product.id)).toBe(25);
      return;
    }
    // An import that has taken the rates and written the new day, not yet committed.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const importing = db.transaction(async (tx) => {
      await tx.query('LOCK TABLE exchange_rates IN SHARE ROW EXCLUSIVE MODE');
      await tx.query(
        `INSERT INTO exchange_rates (currency, rate_date, rate, source) VALUES ('GBP', '2026-11-22', 0.4, 'test')`,
      );
      holding();
      await released;
    });
    await held;
    const syncing = syncCreating(db, hostId, product, async () => {});
    await until(() => someoneWaitsForRates(db), 30_000, 'the sync to wait for the import');
    release();
    await importing;
    expect((await syncing).kind).toBe('done');
    // 10 GBP at 0.4 = 25 EUR: the sync read the rate the import committed.
    expect(await basePrice(db, product.id)).toBe(25);
  });
});
