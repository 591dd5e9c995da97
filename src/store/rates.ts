// Exchange rates and the prices derived from them: the rates table, its import (which derives every affected
// product's EUR price again), and the derived price columns the sync writes with each product.
import type { Content } from '../catalog/product-fields.js';
import { BASE_CURRENCY, toBase, type RateDay, type RateTable } from '../catalog/rates.js';
import { monthlyEquivalent } from '../catalog/true-cost.js';
import type { Database, Queryable, Row } from './db.js';
import { iso } from './rows.js';

/**
 * A sync takes this lock before it reads the rates and holds it until it commits; an import takes a lock that
 * conflicts with it. So a sync either finishes before an import changes the rates (and the import then derives its
 * products again), or reads the rates the import committed: no product keeps a price derived from replaced rates.
 * Syncs do not block each other (SHARE does not conflict with SHARE), and readers take no part.
 */
export const RATES_LOCK_FOR_SYNC = 'LOCK TABLE exchange_rates IN SHARE MODE';
const RATES_LOCK_FOR_IMPORT = 'LOCK TABLE exchange_rates IN SHARE ROW EXCLUSIVE MODE';

/** Each currency's latest day: a walk from one currency to the next over the primary key, however long the history. */
export const CURRENT_RATES = `WITH RECURSIVE c AS (
    (SELECT currency FROM exchange_rates ORDER BY currency LIMIT 1)
    UNION ALL
    SELECT (SELECT e.currency FROM exchange_rates e WHERE e.currency > c.currency ORDER BY e.currency LIMIT 1)
    FROM c WHERE c.currency IS NOT NULL)
  SELECT c.currency, r.rate, r.rate::float8 AS rate_number, r.rate_date::text AS rate_date, r.source, r.imported_at
  FROM c CROSS JOIN LATERAL (
    SELECT rate, rate_date, source, imported_at FROM exchange_rates e
    WHERE e.currency = c.currency ORDER BY e.rate_date DESC LIMIT 1) AS r
  WHERE c.currency IS NOT NULL`;

export function rateTableOf(rows: readonly Row[]): RateTable {
  const table = new Map<string, { rate: number; date: string }>();
  for (const row of rows)
    table.set(String(row.currency), { rate: Number(row.rate_number), date: String(row.rate_date) });
  return table;
}

/** Each currency's latest rate: a fixed statement, kept prepared where the connection allows. */
export async function currentRates(db: Queryable): Promise<RateTable> {
  return rateTableOf((await db.query(CURRENT_RATES, [], { prepared: true })).rows);
}

export interface StoredRate {
  currency: string;
  rate: number;
  date: string;
  source: string;
  imported_at: string;
}

function toStoredRate(row: Row): StoredRate {
  return {
    currency: String(row.currency),
    rate: Number(row.rate_number),
    date: String(row.rate_date),
    source: String(row.source),
    imported_at: iso(row.imported_at),
  };
}

/** The latest rate of every currency, by currency; or one currency's days, newest first. */
export async function listRates(db: Queryable, query: { currency?: string; limit: number }): Promise<StoredRate[]> {
  if (query.currency === undefined)
    return (await db.query(`${CURRENT_RATES} ORDER BY c.currency`)).rows.map(toStoredRate);
  const { rows } = await db.query(
    `SELECT currency, rate::float8 AS rate_number, rate_date::text AS rate_date, source, imported_at
     FROM exchange_rates WHERE currency = $1 ORDER BY rate_date DESC LIMIT $2`,
    [query.currency, query.limit],
  );
  return rows.map(toStoredRate);
}

export interface RatesImport {
  days: number;
  /** rates written (new days, or days whose rate or source changed) */
  rates_written: number;
  /** listed products whose EUR price was derived again */
  products_updated: number;
  /** the latest day of the import */
  date: string;
}

/**
 * Stores the days' rates (a day already held is replaced) and, in the same transaction, derives the EUR price of
 * every listed product in those currencies again from its currency's latest rate. Products whose price did not
 * change are not written.
 */
export async function importRates(db: Database, days: readonly RateDay[], source: string): Promise<RatesImport> {
  const currencies: string[] = [];
  const dates: string[] = [];
  const rates: string[] = [];
  for (const day of days) {
    for (const [currency, rate] of day.rates) {
      currencies.push(currency);
      dates.push(day.date);
      rates.push(rate);
    }
  }
  return db.transaction(async (tx) => {
    await tx.query(RATES_LOCK_FOR_IMPORT);
    const written = await tx.query(
      `INSERT INTO exchange_rates (currency, rate_date, rate, source)
       SELECT currency, rate_date, rate, $4 FROM unnest($1::text[], $2::date[], $3::numeric[]) AS x (currency, rate_date, rate)
       ON CONFLICT (currency, rate_date) DO UPDATE SET rate = excluded.rate, source = excluded.source, imported_at = now()
       WHERE (exchange_rates.rate, exchange_rates.source) IS DISTINCT FROM (excluded.rate, excluded.source)`,
      [currencies, dates, rates, source],
    );
    const updated = await tx.query(
      `UPDATE products p SET base_monthly_price = round(p.monthly_equivalent / r.rate, 6)
       FROM (${CURRENT_RATES}) AS r
       WHERE p.currency = r.currency AND p.currency = ANY($1::text[]) AND p.status = 'active'
         AND p.base_monthly_price IS DISTINCT FROM round(p.monthly_equivalent / r.rate, 6)`,
      [[...new Set(currencies)]],
    );
    return {
      days: days.length,
      rates_written: written.rowCount ?? 0,
      products_updated: updated.rowCount ?? 0,
      date:
        days
          .map((day) => day.date)
          .sort()
          .at(-1) ?? '',
    };
  });
}

/** Listed products with a monthly price but no EUR price (no rate for their currency), as the partial index has them. */
const UNCONVERTED = `status = 'active' AND base_monthly_price IS NULL AND monthly_equivalent IS NOT NULL`;

/**
 * Currencies of listed products that have a monthly price but no EUR price (no rate for their currency): a walk over
 * the partial index that skips from one currency to the next.
 */
const UNCONVERTED_CURRENCIES = `WITH RECURSIVE c AS (
    (SELECT currency FROM products WHERE ${UNCONVERTED} ORDER BY currency LIMIT 1)
    UNION ALL
    SELECT (SELECT p.currency FROM products p WHERE ${UNCONVERTED} AND p.currency > c.currency ORDER BY p.currency LIMIT 1)
    FROM c WHERE c.currency IS NOT NULL)
  SELECT currency FROM c WHERE currency IS NOT NULL`;

/** What a list of products needs to show its prices: the current rates, and the currencies left unconverted. */
export interface PriceContext {
  rates: RateTable;
  unconverted: string[];
  /** exchange_rates_version when these rates were read (migration 051) */
  version: string;
}

/** The rates' version as an SQL expression: a search reads it beside its rows (an InitPlan, once per statement). */
export const RATES_VERSION = '(SELECT version::text FROM exchange_rates_version)';

/** The price context and the version of its rates, read in one snapshot by one fixed statement. */
const PRICE_CONTEXT = `SELECT ${RATES_VERSION} AS version, (SELECT json_build_object(
    'rates', coalesce((SELECT json_agg(json_build_object('currency', r.currency, 'rate', r.rate_number, 'date', r.rate_date))
                       FROM (${CURRENT_RATES}) AS r), '[]'),
    'unconverted', coalesce((SELECT json_agg(u.currency ORDER BY u.currency) FROM (${UNCONVERTED_CURRENCIES}) AS u), '[]'))::text) AS price_context`;

/** The rates and unconverted currencies as they are now, read by a statement of their own. */
export async function readPriceContext(db: Queryable): Promise<PriceContext> {
  const { rows } = await db.query<{ version: string; price_context: string }>(PRICE_CONTEXT, [], { prepared: true });
  const { rates, unconverted } = JSON.parse(rows[0]!.price_context) as {
    rates: { currency: string; rate: number; date: string }[];
    unconverted: string[];
  };
  return {
    rates: rateTableOf(
      rates.map((rate) => ({ currency: rate.currency, rate_number: rate.rate, rate_date: rate.date })),
    ),
    unconverted,
    version: rows[0]!.version,
  };
}

/**
 * How long a kept price context serves before it is read again. Its rates are checked on every search (the version
 * beside the rows); this bounds how late its unconverted currencies may be after a sync brings a currency without a
 * rate: as late as the filter choices beside the listing.
 */
const PRICE_CONTEXT_TTL_MS = 5_000;

interface KeptContext {
  at: number;
  value: Promise<PriceContext>;
  /** the context once read */
  read?: PriceContext;
}

const keptContexts = new WeakMap<Queryable, KeptContext>();

/**
 * The price context this process read last from `db`, if younger than PRICE_CONTEXT_TTL_MS, else read now (requests
 * that ask meanwhile wait for the same read). Reading the rates and the unconverted currencies costs PostgreSQL more
 * than a page of most searches; a search reads only their version (RATES_VERSION) and calls `renewPriceContext`
 * when it is not the kept one.
 */
export function keptPriceContext(db: Queryable): Promise<PriceContext> {
  const kept = keptContexts.get(db);
  if (kept && performance.now() - kept.at < PRICE_CONTEXT_TTL_MS) return kept.value;
  return keepRead(db);
}

/**
 * The price context read again after a search read its rows at version `seen` (undefined: a search that read no rows)
 * and `used` was the context it had. Another request may have read a newer one since, or be reading it: that one
 * serves if it is at least as new as `seen`.
 */
export async function renewPriceContext(
  db: Queryable,
  used: PriceContext,
  seen: string | undefined,
): Promise<PriceContext> {
  const kept = keptContexts.get(db);
  if (kept && kept.read !== used) {
    const newer = await kept.value.catch(() => undefined);
    if (newer && (seen === undefined || BigInt(newer.version) >= BigInt(seen))) return newer;
  }
  return keepRead(db);
}

function keepRead(db: Queryable): Promise<PriceContext> {
  const kept: KeptContext = { at: performance.now(), value: readPriceContext(db) };
  keptContexts.set(db, kept);
  kept.value.then(
    (read) => (kept.read = read),
    // A failed read is not kept: the next request reads again.
    () => keptContexts.get(db) === kept && keptContexts.delete(db),
  );
  return kept.value;
}

// ------------------------------------------------------------------------------ what the sync writes with a product

/** The derived price columns, written beside a product's content by the sync's statements and COPY. */
export const DERIVED_PRICE_COLUMNS = 'monthly_equivalent, base_monthly_price';
/** Their types, as json_to_recordset reads them. */
export const DERIVED_PRICE_RECORD = 'monthly_equivalent numeric, base_monthly_price numeric';
/** Their assignment from the record `x`. */
export const SET_DERIVED_PRICES =
  'monthly_equivalent = x.monthly_equivalent, base_monthly_price = x.base_monthly_price';

export interface DerivedPrices {
  monthly_equivalent: number | null;
  base_monthly_price: number | null;
}

export function derivedPrices(content: Content, rates: RateTable): DerivedPrices {
  const monthly = monthlyEquivalent(content);
  return { monthly_equivalent: monthly, base_monthly_price: toBase(monthly, content.currency, rates) };
}

/** The derived columns in COPY text format, tab-separated. */
export function copyDerivedPrices(content: Content, rates: RateTable): string {
  const { monthly_equivalent: monthly, base_monthly_price: base } = derivedPrices(content, rates);
  return `${monthly === null ? '\\N' : String(monthly)}\t${base === null ? '\\N' : String(base)}`;
}

export { BASE_CURRENCY };
