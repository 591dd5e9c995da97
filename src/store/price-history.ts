// Price history: the prices a product had before each change a sync made to them. A product's current prices are its
// own row; this table keeps the earlier ones, each with the span it was in effect. store/sync.ts writes them with the
// statement that writes the changed products; nothing is written for created or unchanged products. The same statement
// keeps the plans that sell out or come back (stock_changes, migration 060).
import type { PricingTier } from '../catalog/types.js';
import type { Queryable } from './db.js';
import { iso, jsonOrNull, numberOrNull } from './rows.js';

/** Earlier price sets kept per product; the oldest are forgotten as new changes come (documented in docs/directory-api.md). */
export const PRICE_HISTORY_MAX_CHANGES = 100;

/** Whether the product row `p` holds other prices than the record `x` of its new content. */
const REPRICED = (p: string, x: string) =>
  `(${p}.price IS DISTINCT FROM ${x}.price OR ${p}.currency IS DISTINCT FROM ${x}.currency
    OR ${p}.setup_fee IS DISTINCT FROM ${x}.setup_fee OR ${p}.pricing_tiers::jsonb IS DISTINCT FROM ${x}.pricing_tiers::jsonb)`;

/**
 * The statement that writes changed (updated or reactivated) products from the rows of `source` (a SELECT of
 * external_id, the content columns and fingerprint) and, in the same statement, keeps the prices each
 * replaces when they differ, forgetting a product's changes beyond PRICE_HISTORY_MAX_CHANGES, and each sell-out (stock
 * becoming 0) and restock (stock leaving 0, to units left or to not tracked). `overwrite` is the SET
 * list of a changed product; `host` and `sync` are the parameters of the host's id and the sync's id.
 */
export function changedWithHistory(source: string, overwrite: string, host: string, sync: string): string {
  return `WITH x AS MATERIALIZED (${source}),
  written AS (
    UPDATE products p SET ${overwrite}, prices_since = CASE WHEN ${REPRICED('p', 'x')} THEN now() ELSE p.prices_since END
    FROM x JOIN products o ON o.host_id = ${host} AND o.external_id = x.external_id
    WHERE p.host_id = ${host} AND p.external_id = x.external_id
    RETURNING p.id, ${REPRICED('o', 'x')} AS repriced, coalesce(o.prices_since, o.created_at) AS valid_from, o.price, o.currency,
      o.setup_fee, o.pricing_tiers, o.monthly_price, p.monthly_price AS new_monthly_price, p.currency AS new_currency,
      coalesce(o.stock = 0, false) AS was_sold_out, p.stock AS new_stock),
  stocked AS (
    INSERT INTO stock_changes (host_id, product_id, sync_id, changed_at, event, stock)
    SELECT ${host}, id, ${sync}, now(), CASE WHEN was_sold_out THEN 'restocked' ELSE 'sold_out' END, new_stock
    FROM written WHERE was_sold_out <> coalesce(new_stock = 0, false)),
  kept AS (
    INSERT INTO price_history (host_id, product_id, replaced_at, sync_id, valid_from, price, currency, setup_fee, pricing_tiers,
      monthly_price, new_monthly_price, new_currency)
    SELECT ${host}, id, now(), ${sync}, valid_from, price, currency, setup_fee, pricing_tiers, monthly_price, new_monthly_price, new_currency
    FROM written WHERE repriced
    RETURNING product_id)
  DELETE FROM price_history h USING kept
  WHERE h.host_id = ${host} AND h.product_id = kept.product_id
    AND h.replaced_at < (SELECT e.replaced_at FROM price_history e WHERE e.host_id = ${host} AND e.product_id = kept.product_id
                         ORDER BY e.replaced_at DESC OFFSET ${PRICE_HISTORY_MAX_CHANGES - 2} LIMIT 1)`;
}

/** One set of prices and the span it was (or is) in effect; `to` is null for the current one. */
export interface PricePoint {
  from: string;
  to: string | null;
  price: number | null;
  monthly_price: number | null;
  currency: string;
  setup_fee: number | null;
  pricing_tiers: PricingTier[] | null;
}

/**
 * A listed product's prices over time, oldest first, its current prices last; null when the product is not listed.
 * `truncated`: older changes were forgotten (PRICE_HISTORY_MAX_CHANGES).
 */
export async function listedPriceHistory(
  db: Queryable,
  productId: string,
): Promise<{ points: PricePoint[]; truncated: boolean } | null> {
  const { rows } = await db.query(
    `WITH product AS (
       SELECT p.host_id, p.id, coalesce(p.prices_since, p.created_at) AS valid_from, p.price, p.currency, p.setup_fee,
              p.pricing_tiers, p.monthly_price, p.created_at
       FROM products p JOIN hosts h ON h.id = p.host_id
       WHERE p.id = $1 AND p.status = 'active' AND h.status = 'active')
     SELECT * FROM (
       SELECT e.valid_from, e.replaced_at AS valid_to, e.price::float8 AS price, e.currency, e.setup_fee::float8 AS setup_fee,
              e.pricing_tiers, e.monthly_price::float8 AS monthly_price, product.created_at
       FROM product JOIN price_history e ON e.host_id = product.host_id AND e.product_id = product.id
       ORDER BY e.replaced_at DESC, e.sync_id DESC
       LIMIT ${PRICE_HISTORY_MAX_CHANGES}) AS earlier
     UNION ALL
     SELECT valid_from, NULL, price::float8, currency, setup_fee::float8, pricing_tiers, monthly_price::float8, created_at FROM product`,
    [productId],
    // One product's rows by its id: the same plan for every product.
    { prepared: true },
  );
  const current = rows.at(-1);
  if (!current || current.valid_to !== null) return null;
  const earlier = rows.slice(0, -1).reverse();
  const points = [...earlier, current].map((row): PricePoint => ({
    from: iso(row.valid_from),
    to: row.valid_to === null ? null : iso(row.valid_to),
    price: numberOrNull(row.price),
    monthly_price: numberOrNull(row.monthly_price),
    currency: String(row.currency),
    setup_fee: numberOrNull(row.setup_fee),
    pricing_tiers: jsonOrNull(row.pricing_tiers) as PricingTier[] | null,
  }));
  // The oldest kept set began after the product was created: earlier ones were forgotten.
  const truncated = points[0]!.from !== iso(current.created_at);
  return { points, truncated };
}

/**
 * SQL of the monthly price the product row `p` had at the start of the UTC day `since` (a parameter, 'YYYY-MM-DD'),
 * or the first it had after that day began; NULL when it had another currency then. With the product's current monthly
 * price lower than this, its price dropped since that day.
 *
 * A product whose prices last changed before that day (or never: prices_since NULL) has no change since: the statement
 * that keeps a change sets prices_since to the change's replaced_at, so no kept change is later than prices_since. Its
 * history is not looked at, which spares a lookup per row wherever the planner computes this before a sort.
 */
export function monthlyPriceSince(since: string): string {
  const dayStart = `${since}::text::date::timestamp AT TIME ZONE 'UTC'`;
  return `(CASE WHEN p.prices_since >= ${dayStart} THEN (SELECT CASE WHEN e.currency = p.currency THEN e.monthly_price END FROM price_history e
     WHERE e.host_id = p.host_id AND e.product_id = p.id AND e.replaced_at >= ${dayStart}
     ORDER BY e.replaced_at, e.sync_id LIMIT 1) END)`;
}

/**
 * SQL of "the product row `p` is cheaper now than on the day `since`": only a product whose prices changed since that
 * day can be, so the changes made since then (an index on replaced_at) narrow the listing before each is compared.
 */
export function droppedSince(since: string): string {
  return `(p.host_id, p.id) IN (SELECT e.host_id, e.product_id FROM price_history e
       WHERE e.replaced_at >= ${since}::text::date::timestamp AT TIME ZONE 'UTC')
     AND ${monthlyPriceSince(since)} > p.monthly_price`;
}
