// The hosts aggregate: onboarding, lookup, suspension.
import { PROFILE_FIELDS, type HostProfileValues, type ProfileChange } from '../catalog/host-profile.js';
import type { Queryable } from './db.js';
import { iso, isoOrNull } from './rows.js';

/** pending: signed up on its own, not listed until its domain is proved (and, if the operator asks, approved) */
export type HostStatus = 'active' | 'suspended' | 'pending';

/** What the public sees of a host's profile (its order-link template shows only as each product's order_url). */
export interface HostProfile {
  website: string | null;
  description: string | null;
  country: string | null;
}

export interface Host extends HostProfileValues {
  id: number;
  slug: string;
  name: string;
  default_currency: string;
  status: HostStatus;
  created_at: string;
  updated_at: string;
  /** the last applied sync: when the host's billing system last confirmed its catalogue; null if it never synced */
  confirmed_at: string | null;
}

/** The public profile's columns of the hosts row `h`. */
export const PUBLIC_PROFILE_COLUMNS = 'h.website, h.description, h.country';

const textOrNull = (value: unknown) => (typeof value === 'string' ? value : null);

export function publicProfileOf(row: Record<string, unknown>): HostProfile {
  return {
    website: textOrNull(row.website),
    description: textOrNull(row.description),
    country: textOrNull(row.country),
  };
}

export interface HostDetails extends Host {
  product_counts: { active: number; inactive: number };
  last_sync_at: string | null;
}

const COLUMNS = `id, slug, name, default_currency, status, created_at, updated_at, confirmed_at, ${PROFILE_FIELDS.join(', ')}`;

function toHost(row: Record<string, unknown>): Host {
  return {
    id: Number(row.id),
    slug: String(row.slug),
    name: String(row.name),
    default_currency: String(row.default_currency),
    status: row.status as HostStatus,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    ...publicProfileOf(row),
    order_url_template: textOrNull(row.order_url_template),
    confirmed_at: isoOrNull(row.confirmed_at),
  };
}

/** Sets the profile fields a change names (null clears one); the others stay. Null when there is no such host. */
export async function updateHostProfile(
  db: Queryable,
  where: { slug: string } | { id: number },
  change: ProfileChange,
): Promise<Host | null> {
  const fields = PROFILE_FIELDS.filter((field) => change[field] !== undefined);
  const sets = fields.map((field, k) => `${field} = $${k + 2}`);
  const { rows } = await db.query(
    `UPDATE hosts SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE ${'slug' in where ? 'slug' : 'id'} = $1 RETURNING ${COLUMNS}`,
    ['slug' in where ? where.slug : where.id, ...fields.map((field) => change[field])],
  );
  return rows[0] ? toHost(rows[0]) : null;
}

export async function findHostById(db: Queryable, id: number): Promise<Host | null> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM hosts WHERE id = $1`, [id]);
  return rows[0] ? toHost(rows[0]) : null;
}

export class SlugTakenError extends Error {
  constructor(readonly slug: string) {
    super(`a host with slug "${slug}" already exists`);
  }
}

export async function insertHost(
  db: Queryable,
  host: { slug: string; name: string; default_currency: string },
): Promise<Host> {
  const { rows } = await db.query(
    `INSERT INTO hosts (slug, name, default_currency) VALUES ($1, $2, $3)
     ON CONFLICT (slug) DO NOTHING
     RETURNING ${COLUMNS}`,
    [host.slug, host.name, host.default_currency],
  );
  if (rows.length === 0) throw new SlugTakenError(host.slug);
  return toHost(rows[0]!);
}

export async function findHostBySlug(db: Queryable, slug: string): Promise<Host | null> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM hosts WHERE slug = $1`, [slug]);
  return rows[0] ? toHost(rows[0]) : null;
}

export async function listHosts(db: Queryable): Promise<Host[]> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM hosts ORDER BY slug`);
  return rows.map(toHost);
}

export async function hostDetails(db: Queryable, host: Host): Promise<HostDetails> {
  const { rows } = await db.query<{ active: number; inactive: number; last_sync_at: unknown }>(
    `SELECT
       (SELECT count(*) FROM products WHERE host_id = $1 AND status = 'active')::int AS active,
       (SELECT count(*) FROM products WHERE host_id = $1 AND status = 'inactive')::int AS inactive,
       (SELECT max(applied_at) FROM sync_runs WHERE host_id = $1 AND NOT dry_run) AS last_sync_at`,
    [host.id],
  );
  const row = rows[0]!;
  return {
    ...host,
    product_counts: { active: Number(row.active), inactive: Number(row.inactive) },
    last_sync_at: isoOrNull(row.last_sync_at),
  };
}

export async function setHostStatus(db: Queryable, slug: string, status: HostStatus): Promise<Host | null> {
  const { rows } = await db.query(
    `UPDATE hosts SET status = $2, updated_at = now() WHERE slug = $1 RETURNING ${COLUMNS}`,
    [slug, status],
  );
  return rows[0] ? toHost(rows[0]) : null;
}
