// The price context a process keeps (src/store/rates.ts): read once for the requests that ask together, served
// until a search reads another rates' version beside its rows, then read again once, whoever asks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../../src/store/db.js';
import { importRates, keptPriceContext, renewPriceContext } from '../../src/store/rates.js';
import { openTestDatabase } from '../support/databases.js';
import { STORES } from '../support/server.js';

const day = (date: string, gbp: string) => [{ date, rates: new Map([['GBP', gbp]]) }];

/** `db`, counting the statements that read the price context. */
function counting(db: Database): { db: Queryable; reads: () => number } {
  let reads = 0;
  return {
    db: {
      query: (text, params, options) => {
        if (text.includes("'unconverted'")) reads++;
        return db.query(text, params, options);
      },
    },
    reads: () => reads,
  };
}

async function versionOf(db: Database): Promise<string> {
  const { rows } = await db.query<{ version: string }>('SELECT version::text AS version FROM exchange_rates_version');
  return rows[0]!.version;
}

describe.each(STORES)('the kept price context (%s store)', (store) => {
  let db: Database;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(store));
  });
  afterAll(async () => {
    await close?.();
  });

  it('is read once for requests asking together, and again once when a search saw other rates', async () => {
    const counted = counting(db);
    const [first, second] = await Promise.all([keptPriceContext(counted.db), keptPriceContext(counted.db)]);
    expect(first).toBe(second);
    expect(await keptPriceContext(counted.db)).toBe(first);
    expect(counted.reads()).toBe(1);
    expect(first.rates.size).toBe(0);
    expect(first.version).toBe(await versionOf(db));

    // An import (from any process) moves the version on in its own transaction.
    await importRates(db, day('2026-11-20', '0.8'), 'test');
    const seen = await versionOf(db);
    expect(BigInt(seen)).toBeGreaterThan(BigInt(first.version));

    // Two requests that priced at the old context and then saw the new version read it once between them.
    const [renewed, again] = await Promise.all([
      renewPriceContext(counted.db, first, seen),
      renewPriceContext(counted.db, first, seen),
    ]);
    expect(renewed).toBe(again);
    expect(counted.reads()).toBe(2);
    expect(renewed.version).toBe(seen);
    expect(renewed.rates.get('GBP')).toEqual({ rate: 0.8, date: '2026-11-20' });
    // A request still holding the old context gets the one read since, without reading.
    expect(await renewPriceContext(counted.db, first, seen)).toBe(renewed);
    expect(await keptPriceContext(counted.db)).toBe(renewed);
    expect(counted.reads()).toBe(2);
    // A search with no rows saw no version: the context is read again.
    const empty = await renewPriceContext(counted.db, renewed, undefined);
    expect(counted.reads()).toBe(3);
    expect(empty.version).toBe(seen);
  });

  it('moves the version with every statement that changes the rates, and not otherwise', async () => {
    const before = await versionOf(db);
    await db.query('SELECT * FROM exchange_rates');
    expect(await versionOf(db)).toBe(before);
    await db.query(`UPDATE exchange_rates SET source = 'edited by hand'`);
    const edited = await versionOf(db);
    expect(BigInt(edited)).toBeGreaterThan(BigInt(before));
    await db.query(`DELETE FROM exchange_rates WHERE currency = 'GBP'`);
    expect(BigInt(await versionOf(db))).toBeGreaterThan(BigInt(edited));
  });
});
