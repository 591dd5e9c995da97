// The providers of the public directory: their list, a page at a time, and one provider's profile.
import type { Queryable } from '../db.js';
import { isStale, type Freshness } from '../freshness.js';
import { PUBLIC_PROFILE_COLUMNS, publicProfileOf, type HostProfile } from '../hosts.js';
import { iso, isoOrNull } from '../rows.js';
import { LISTING_FIGURES_TTL_MS, keptFigure } from './kept-figures.js';

export interface ListedHost extends HostProfile {
  slug: string;
  name: string;
  default_currency: string;
  product_count: number;
  created_at: string;
  last_synced_at: string | null;
  /** the last applied sync (the same as last_synced_at) */
  confirmed_at: string | null;
  stale: boolean;
}
const HOST_COLUMNS = `h.slug, h.name, h.default_currency, h.created_at, h.confirmed_at, ${PUBLIC_PROFILE_COLUMNS}`;
/** A host's listed products, counted (an index-only walk of the host's entries). */
const PRODUCT_COUNT = `(SELECT count(*) FROM products p WHERE p.host_id = h.id AND p.status = 'active')::int AS product_count`;

/** A host's row as the directory lists it; its product count is the row's own unless given (a kept count). */
function toListedHost(
  row: Record<string, unknown>,
  freshness: Freshness,
  productCount = Number(row.product_count),
): ListedHost {
  const confirmedAt = isoOrNull(row.confirmed_at);
  return {
    slug: String(row.slug),
    name: String(row.name),
    default_currency: String(row.default_currency),
    ...publicProfileOf(row),
    product_count: productCount,
    created_at: iso(row.created_at),
    last_synced_at: confirmedAt,
    confirmed_at: confirmedAt,
    stale: isStale(confirmedAt, freshness),
  };
}

/** Active hosts in slug order, a page at a time; afterSlug is the previous page's last slug. */
export async function listListedHosts(
  db: Queryable,
  page: { limit: number; afterSlug: string | null; freshness: Freshness },
): Promise<{ hosts: ListedHost[]; next: string | null }> {
  const { rows } = await db.query(
    `SELECT h.id::text AS id, ${HOST_COLUMNS} FROM hosts h
     WHERE h.status = 'active' AND ($1::text IS NULL OR h.slug > $1::text)
     ORDER BY h.slug LIMIT $2`,
    [page.afterSlug, page.limit + 1],
    { prepared: true },
  );
  const listed = rows.slice(0, page.limit);
  const counts = await keptProductCounts(
    db,
    listed.map((row) => String(row.id)),
  );
  const hosts = listed.map((row) => toListedHost(row, page.freshness, counts.get(String(row.id)) ?? 0));
  return { hosts, next: rows.length > page.limit ? (hosts.at(-1)?.slug ?? null) : null };
}

/**
 * The listed products of each of a list's hosts, kept LISTING_FIGURES_TTL_MS like the other figures beside a
 * listing: counting a thousand products for each of the home page's 30 hosts cost PostgreSQL about 4 ms a view. A
 * host's own page counts its products afresh.
 */
function keptProductCounts(db: Queryable, hostIds: string[]): Promise<Map<string, number>> {
  if (hostIds.length === 0) return Promise.resolve(new Map());
  return keptFigure(db, `host-counts:${hostIds.join(',')}`, LISTING_FIGURES_TTL_MS, async () => {
    const { rows } = await db.query<{ id: string; product_count: number }>(
      `SELECT h.id::text AS id, ${PRODUCT_COUNT} FROM unnest($1::bigint[]) AS h (id)`,
      [hostIds],
    );
    return new Map(rows.map((row) => [row.id, Number(row.product_count)]));
  });
}

export async function findListedHost(db: Queryable, slug: string, freshness: Freshness): Promise<ListedHost | null> {
  const { rows } = await db.query(
    `SELECT ${HOST_COLUMNS}, ${PRODUCT_COUNT} FROM hosts h WHERE h.slug = $1 AND h.status = 'active'`,
    [slug],
    {
      prepared: true,
    },
  );
  return rows[0] ? toListedHost(rows[0], freshness) : null;
}
