// A product as the public sees it: the columns a listing reads, the row made into a listed product, and a product's
// own page. Only active products of active hosts ever leave here.
import { placeOf } from '../../catalog/gazetteer.js';
import { expandOrderUrl } from '../../catalog/host-profile.js';
import type { Content } from '../../catalog/product-fields.js';
import type { ComparableSpecs, NumericSpec } from '../../catalog/specs.js';
import type { Queryable } from '../db.js';
import { isStale, type Freshness } from '../freshness.js';
import { monthlyPriceSince } from '../price-history.js';
import { RATES_VERSION } from '../rates.js';
import { contentOfRow, SELECT_CONTENT } from '../product-columns.js';
import { iso, isoOrNull, numberOrNull } from '../rows.js';

export interface ListedHostRef {
  slug: string;
  name: string;
}

/** Where a datacenter location is, by the gazetteer: null city and country for a location it does not know. */
export interface ListedPlace {
  location: string;
  city: string | null;
  country: string | null;
}

/** A product as the public sees it: its content without the host's own external_id. */
export interface ListedProduct extends Content {
  id: string;
  /** the specs read as the vocabulary of the category's family (catalog/specs.ts) */
  comparable_specs: ComparableSpecs;
  places: ListedPlace[];
  /** the monthly pricing tier if the product has one, else price; null when it has neither ("price on request") */
  monthly_price: number | null;
  /** the price per month, or its equivalent for a plan sold by longer periods (catalog/true-cost.ts); null if none */
  monthly_equivalent: number | null;
  /** monthly_equivalent in EUR; null when there is none, or no exchange rate for the product's currency */
  base_monthly_price: number | null;
  /** the host's order link for this product, when the host has a template; else null */
  order_url: string | null;
  created_at: string;
  updated_at: string;
  host: ListedHostRef;
  /** the host's last applied sync: when its billing system last confirmed this product; null if never */
  confirmed_at: string | null;
  /** the host's confirmation is older than STALE_AFTER_DAYS, or it never synced */
  stale: boolean;
  /** the monthly price is lower than it was on `since`, which it was at */
  price_drop: { since: string; previous_monthly_price: number } | null;
  /** whether it can be bought: stock above 0; false when sold out; null when its stock is not tracked */
  available: boolean | null;
}
/** The columns of a listed product; `since` is the SQL of the day price drops are shown since. */
export const productColumns = (
  since: string,
) => `p.id, ${SELECT_CONTENT}, p.spec_values, p.monthly_price::float8 AS monthly_price,
  p.monthly_equivalent::float8 AS monthly_equivalent, p.base_monthly_price::float8 AS base_monthly_price, p.created_at,
  p.updated_at, h.slug AS host_slug, h.name AS host_name, h.confirmed_at, h.order_url_template, p.external_id,
  ${since}::text AS drop_since, ${monthlyPriceSince(since)}::float8 AS price_then`;

/** A normalized spec as SQL: a number, or null for a product whose specs do not give it. */
export const specExpression = (key: NumericSpec) => `((p.spec_values ->> '${key}')::numeric)`;
function placesOf(locations: readonly string[] | null): ListedPlace[] {
  return (locations ?? []).map((location) => {
    const place = placeOf(location);
    return { location, city: place?.city ?? null, country: place?.country ?? null };
  });
}

export function toListedProduct(row: Record<string, unknown>, freshness: Freshness): ListedProduct {
  const confirmedAt = isoOrNull(row.confirmed_at);
  const monthly = numberOrNull(row.monthly_price);
  const then = numberOrNull(row.price_then);
  const content = contentOfRow(row);
  return {
    id: String(row.id),
    ...content,
    comparable_specs: row.spec_values ?? {},
    places: placesOf(row.datacenter_locations as string[] | null),
    monthly_price: monthly,
    monthly_equivalent: numberOrNull(row.monthly_equivalent),
    base_monthly_price: numberOrNull(row.base_monthly_price),
    order_url:
      typeof row.order_url_template === 'string'
        ? expandOrderUrl(row.order_url_template, String(row.external_id))
        : null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    host: { slug: String(row.host_slug), name: String(row.host_name) },
    confirmed_at: confirmedAt,
    stale: isStale(confirmedAt, freshness),
    price_drop:
      monthly !== null && then !== null && then > monthly
        ? { since: String(row.drop_since), previous_monthly_price: then }
        : null,
    available: content.stock === null ? null : content.stock > 0,
  };
}
/** A listed product, stale or not (its page says so); price drops are shown since `dropsSince` (YYYY-MM-DD). */
export async function findListedProduct(
  db: Queryable,
  id: string,
  freshness: Freshness,
  dropsSince: string,
): Promise<ListedProduct | null> {
  return (await listedProductRead(db, id, freshness, dropsSince, false)).product;
}

/**
 * findListedProduct, and the version of the exchange rates read in the same statement, to check the price context the
 * product is shown at against (priced-search.ts); undefined when the product is not listed.
 */
export function findListedProductAtRates(
  db: Queryable,
  id: string,
  freshness: Freshness,
  dropsSince: string,
): Promise<{ product: ListedProduct | null; ratesVersion: string | undefined }> {
  return listedProductRead(db, id, freshness, dropsSince, true);
}

async function listedProductRead(
  db: Queryable,
  id: string,
  freshness: Freshness,
  dropsSince: string,
  withVersion: boolean,
): Promise<{ product: ListedProduct | null; ratesVersion: string | undefined }> {
  const { rows } = await db.query(
    `SELECT ${productColumns('$2::text')}${withVersion ? `, ${RATES_VERSION} AS rates_version` : ''}
     FROM products p JOIN hosts h ON h.id = p.host_id
     WHERE p.id = $1 AND p.status = 'active' AND h.status = 'active'`,
    [id, dropsSince],
    // One row by its id: the same plan for every product.
    { prepared: true },
  );
  const row = rows[0];
  return {
    product: row ? toListedProduct(row, freshness) : null,
    ratesVersion: typeof row?.rates_version === 'string' ? row.rates_version : undefined,
  };
}

/** The listed products among `ids`, in the order of `ids`; ids that are not listed (any more) are left out. */
export async function findListedProducts(
  db: Queryable,
  ids: readonly string[],
  freshness: Freshness,
  dropsSince: string,
): Promise<ListedProduct[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query(
    `SELECT ${productColumns('$2::text')}
     FROM products p JOIN hosts h ON h.id = p.host_id
     WHERE p.id = ANY ($1::text[]) AND p.status = 'active' AND h.status = 'active'`,
    [ids, dropsSince],
  );
  const found = new Map(rows.map((row) => [String(row.id), toListedProduct(row, freshness)]));
  return ids.flatMap((id) => found.get(id) ?? []);
}

/**
 * A host's active products as its listing will show them, whether or not the host is listed yet (its own preview,
 * for its people only): cheapest first, at most `limit`.
 */
export async function findPreviewProducts(
  db: Queryable,
  hostId: number,
  freshness: Freshness,
  dropsSince: string,
  limit: number,
): Promise<ListedProduct[]> {
  const { rows } = await db.query(
    `SELECT ${productColumns('$2::text')}
     FROM products p JOIN hosts h ON h.id = p.host_id
     WHERE p.host_id = $1 AND p.status = 'active'
     ORDER BY p.monthly_equivalent NULLS LAST, p.id
     LIMIT $3`,
    [hostId, dropsSince, limit],
  );
  return rows.map((row) => toListedProduct(row, freshness));
}
