// Watches and their events: stored, confirmed, read and deleted; the claims by which whichever process is free
// delivers what is due (rows taken with FOR UPDATE SKIP LOCKED and leased, so that a process that dies mid-delivery
// leaves them to another once the lease ends). The events themselves are written by matching the products syncs
// noted (migration 070: its triggers note, match_watch_changes matches).
import type { WatchFilters } from '../watches/filters.js';
import type { WatchEvent, WatchEventKind } from '../watches/events.js';
import type { Queryable } from './db.js';
import { iso, isoOrNull } from './rows.js';

export interface NewWatch {
  id: string;
  email: string | null;
  webhookUrl: string | null;
  productId: string | null;
  search: string | null;
  filters: WatchFilters | null;
  matchKey: string;
  /** email watches: the confirmation token's digest and when it expires; webhook watches are confirmed at once */
  confirm: { digest: Buffer; expiresAt: Date } | null;
}

export interface StoredWatch {
  id: string;
  email: string | null;
  webhook_url: string | null;
  product_id: string | null;
  search: string | null;
  created_at: string;
  confirmed_at: string | null;
  last_sent_at: string | null;
  delivered: number;
  last_delivered_at: string | null;
  disabled_at: string | null;
  disabled_reason: string | null;
  pending_events: number;
}

export type WatchInsertOutcome = { ok: true } | { ok: false; reason: 'unknown_host' | 'unknown_product' };

/** Stores a watch; a provider or product it names must be listed. */
export async function insertWatch(db: Queryable, watch: NewWatch): Promise<WatchInsertOutcome> {
  const f = watch.filters;
  if (watch.productId !== null) {
    const { rows } = await db.query(
      `SELECT 1 FROM products p JOIN hosts h ON h.id = p.host_id WHERE p.id = $1 AND h.status = 'active'`,
      [watch.productId],
    );
    if (rows.length === 0) return { ok: false, reason: 'unknown_product' };
  }
  const { rows } = await db.query(
    `INSERT INTO watches (id, email, webhook_url, product_id, search, category, host_id, facets, words, specs, currency,
                          max_monthly_price, max_base_price, match_key, confirm_digest, confirm_expires_at, confirmed_at)
     SELECT $1, $2, $3, $4, $5, $6, h.id, $8::jsonb, $9::tsquery, $10::jsonpath, $11, $12::numeric, $13::numeric, $14,
            $15, $16::timestamptz, CASE WHEN $15::bytea IS NULL THEN now() END
     FROM (SELECT 1) one LEFT JOIN hosts h ON h.slug = $7
     WHERE $7::text IS NULL OR h.id IS NOT NULL
     RETURNING id`,
    [
      watch.id,
      watch.email,
      watch.webhookUrl,
      watch.productId,
      watch.search,
      f?.category ?? null,
      f?.hostSlug ?? null,
      JSON.stringify(f?.facets ?? []),
      f?.words ?? null,
      f?.specs ?? null,
      f?.currency ?? null,
      f?.maxMonthlyPrice === null || f?.maxMonthlyPrice === undefined ? null : String(f.maxMonthlyPrice),
      f?.maxBasePrice === null || f?.maxBasePrice === undefined ? null : String(f.maxBasePrice),
      watch.matchKey,
      watch.confirm?.digest ?? null,
      watch.confirm?.expiresAt.toISOString() ?? null,
    ],
  );
  return rows.length === 0 ? { ok: false, reason: 'unknown_host' } : { ok: true };
}

/** Watches of an address: those still waiting for confirmation, and all. */
export async function watchesOfAddress(db: Queryable, email: string): Promise<{ unconfirmed: number; all: number }> {
  const { rows } = await db.query(
    `SELECT count(*) FILTER (WHERE confirmed_at IS NULL) AS unconfirmed, count(*) AS all FROM watches WHERE email = $1`,
    [email],
  );
  return { unconfirmed: Number(rows[0]!.unconfirmed), all: Number(rows[0]!.all) };
}

const WATCH_COLUMNS = `w.id, w.email, w.webhook_url, w.product_id, w.search, w.created_at, w.confirmed_at,
  w.last_sent_at, w.delivered, w.last_delivered_at, w.disabled_at, w.disabled_reason,
  (SELECT count(*) FROM watch_events e WHERE e.watch_id = w.id) AS pending_events`;

function toWatch(row: Record<string, unknown>): StoredWatch {
  return {
    id: String(row.id),
    email: (row.email as string | null) ?? null,
    webhook_url: (row.webhook_url as string | null) ?? null,
    product_id: (row.product_id as string | null) ?? null,
    search: (row.search as string | null) ?? null,
    created_at: iso(row.created_at),
    confirmed_at: isoOrNull(row.confirmed_at),
    last_sent_at: isoOrNull(row.last_sent_at),
    delivered: Number(row.delivered),
    last_delivered_at: isoOrNull(row.last_delivered_at),
    disabled_at: isoOrNull(row.disabled_at),
    disabled_reason: (row.disabled_reason as string | null) ?? null,
    pending_events: Number(row.pending_events),
  };
}

export async function findWatch(db: Queryable, id: string): Promise<StoredWatch | null> {
  const { rows } = await db.query(`SELECT ${WATCH_COLUMNS} FROM watches w WHERE w.id = $1`, [id]);
  return rows[0] ? toWatch(rows[0]) : null;
}

/** The unconfirmed watch a confirmation token's digest names, while its link works. */
export async function watchToConfirm(db: Queryable, digest: Buffer): Promise<StoredWatch | null> {
  const { rows } = await db.query(
    `SELECT ${WATCH_COLUMNS} FROM watches w
     WHERE w.confirm_digest = $1 AND w.confirmed_at IS NULL AND w.confirm_expires_at > now()`,
    [digest],
  );
  return rows[0] ? toWatch(rows[0]) : null;
}

/** Confirms the watch the digest names (its link is spent); null when there is none or its link expired. */
export async function confirmWatch(db: Queryable, digest: Buffer): Promise<StoredWatch | null> {
  const { rows } = await db.query(
    `UPDATE watches w SET confirmed_at = now(), confirm_digest = NULL, confirm_expires_at = NULL
     WHERE w.confirm_digest = $1 AND w.confirmed_at IS NULL AND w.confirm_expires_at > now()
     RETURNING ${WATCH_COLUMNS}`,
    [digest],
  );
  return rows[0] ? toWatch(rows[0]) : null;
}

/** Deletes a watch, its address and its events; false when there was none. */
export async function deleteWatch(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query(
    `WITH events AS (DELETE FROM watch_events WHERE watch_id = $1) DELETE FROM watches WHERE id = $1 RETURNING id`,
    [id],
  );
  return rows.length > 0;
}

/**
 * Deletes watches whose confirmation link expired unused, and with them the addresses they held; and the events a
 * sync wrote for a watch deleted meanwhile.
 */
export async function deleteUnconfirmedWatches(db: Queryable): Promise<number> {
  const { rows } = await db.query(
    `WITH orphans AS (DELETE FROM watch_events e WHERE NOT EXISTS (SELECT 1 FROM watches w WHERE w.id = e.watch_id))
     DELETE FROM watches WHERE confirmed_at IS NULL AND confirm_expires_at <= now() RETURNING id`,
  );
  return rows.length;
}

/**
 * Matches the oldest `limit` products that syncs noted as created or changed with the watches, writing their events
 * (migration 070's match_watch_changes, one statement: notes held by another process are skipped, and a failure leaves
 * them for the next round). Returns how many notes it took: `limit` when more may be waiting.
 */
export async function matchWatchChanges(db: Queryable, limit: number): Promise<number> {
  const { rows } = await db.query('SELECT match_watch_changes($1) AS claimed', [limit]);
  return Number(rows[0]!.claimed);
}

const EVENT_COLUMNS = `e.id AS event_id, e.kind, e.product_id, e.occurred_at, e.monthly_price::float8 AS monthly_price,
  e.currency, e.base_price::float8 AS base_price, e.previous_base_price::float8 AS previous_base_price,
  p.name AS product_name, p.category AS product_category, h.slug AS host_slug, h.name AS host_name`;
const EVENT_JOINS = `LEFT JOIN products p ON p.host_id = e.host_id AND p.id = e.product_id AND p.status = 'active'
  LEFT JOIN hosts h ON h.id = p.host_id AND h.status = 'active'`;

function toEvent(row: Record<string, unknown>, baseUrl: string): WatchEvent {
  const productId = String(row.product_id);
  const listed = row.product_name !== null && row.host_slug !== null;
  const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    id: String(row.event_id),
    kind: String(row.kind) as WatchEventKind,
    occurred_at: iso(row.occurred_at),
    product_id: productId,
    product: listed
      ? {
          id: productId,
          name: String(row.product_name),
          host: String(row.host_slug),
          host_name: String(row.host_name),
          category: String(row.product_category),
          url: `${baseUrl}/products/${encodeURIComponent(productId)}`,
        }
      : null,
    monthly_price: number(row.monthly_price),
    currency: String(row.currency),
    base_monthly_price: number(row.base_price),
    previous_base_monthly_price: number(row.previous_base_price),
  };
}

export interface DueDigest {
  watch: { id: string; email: string; search: string | null; product_id: string | null };
  events: WatchEvent[];
}

/**
 * Claims up to `limit` email watches with events whose last message is at least `gapSeconds` old (or that had none),
 * each leased for `leaseSeconds`, with their events. Rows another process holds are skipped.
 */
export async function claimDueDigests(
  db: Queryable,
  options: { gapSeconds: number; leaseSeconds: number; limit: number; baseUrl: string },
): Promise<DueDigest[]> {
  const { rows } = await db.query(
    `WITH due AS (
       SELECT w.id FROM watches w
       WHERE w.email IS NOT NULL AND w.confirmed_at IS NOT NULL
         AND (w.last_sent_at IS NULL OR w.last_sent_at <= now() - make_interval(secs => $1))
         AND (w.leased_until IS NULL OR w.leased_until < now())
         AND EXISTS (SELECT 1 FROM watch_events e WHERE e.watch_id = w.id)
       LIMIT $3
       FOR UPDATE OF w SKIP LOCKED)
     UPDATE watches w SET leased_until = now() + make_interval(secs => $2)
     FROM due WHERE w.id = due.id
     RETURNING w.id, w.email, w.search, w.product_id`,
    [options.gapSeconds, options.leaseSeconds, options.limit],
  );
  if (rows.length === 0) return [];
  const events = await db.query(
    `SELECT e.watch_id, ${EVENT_COLUMNS} FROM watch_events e ${EVENT_JOINS}
     WHERE e.watch_id = ANY($1::text[]) ORDER BY e.occurred_at, e.id`,
    [rows.map((row) => String(row.id))],
  );
  return rows.map((row) => ({
    watch: {
      id: String(row.id),
      email: String(row.email),
      search: (row.search as string | null) ?? null,
      product_id: (row.product_id as string | null) ?? null,
    },
    events: events.rows.filter((event) => event.watch_id === row.id).map((event) => toEvent(event, options.baseUrl)),
  }));
}

/** A digest was sent: its events are done, and the watch's hour starts now. */
export async function digestSent(db: Queryable, watchId: string, eventIds: readonly string[]): Promise<void> {
  await db.query(
    `WITH done AS (DELETE FROM watch_events WHERE watch_id = $1 AND id = ANY($2::text[]))
     UPDATE watches SET last_sent_at = now(), leased_until = NULL, delivered = delivered + $3,
                        last_delivered_at = now()
     WHERE id = $1`,
    [watchId, eventIds, eventIds.length],
  );
}

/** A digest could not be sent: the watch is free again for the next round. */
export async function releaseDigest(db: Queryable, watchId: string): Promise<void> {
  await db.query('UPDATE watches SET leased_until = NULL WHERE id = $1', [watchId]);
}

export interface DueWebhook {
  watch: { id: string; webhook_url: string; search: string | null; product_id: string | null };
  event: WatchEvent;
  attempts: number;
}

/** Claims up to `limit` webhook events that are due, each leased for `leaseSeconds`; rows held elsewhere are skipped. */
export async function claimDueWebhooks(
  db: Queryable,
  options: { leaseSeconds: number; limit: number; baseUrl: string },
): Promise<DueWebhook[]> {
  const { rows } = await db.query(
    `WITH due AS (
       SELECT e.id FROM watch_events e JOIN watches w ON w.id = e.watch_id
       WHERE w.webhook_url IS NOT NULL AND w.disabled_at IS NULL AND e.next_attempt_at <= now()
         AND (e.leased_until IS NULL OR e.leased_until < now())
       ORDER BY e.next_attempt_at
       LIMIT $2
       FOR UPDATE OF e SKIP LOCKED),
     claimed AS (
       UPDATE watch_events e SET leased_until = now() + make_interval(secs => $1), attempts = e.attempts + 1
       FROM due WHERE e.id = due.id
       RETURNING e.*)
     SELECT e.watch_id, e.attempts, w.webhook_url, w.search, w.product_id AS watched_product_id, ${EVENT_COLUMNS}
     FROM claimed e JOIN watches w ON w.id = e.watch_id ${EVENT_JOINS}`,
    [options.leaseSeconds, options.limit],
  );
  return rows.map((row) => ({
    watch: {
      id: String(row.watch_id),
      webhook_url: String(row.webhook_url),
      search: (row.search as string | null) ?? null,
      product_id: (row.watched_product_id as string | null) ?? null,
    },
    event: toEvent(row, options.baseUrl),
    attempts: Number(row.attempts),
  }));
}

/** The receiver acknowledged the event: it is never sent again. */
export async function webhookDelivered(db: Queryable, watchId: string, eventId: string): Promise<void> {
  await db.query(
    `WITH done AS (DELETE FROM watch_events WHERE id = $2 RETURNING 1)
     UPDATE watches SET delivered = delivered + (SELECT count(*) FROM done), last_delivered_at = now() WHERE id = $1`,
    [watchId, eventId],
  );
}

/** A delivery failed: tried again after `retrySeconds`, or, once given up, the watch is turned off with the reason. */
export async function webhookFailed(
  db: Queryable,
  failure: { watchId: string; eventId: string; error: string; retrySeconds: number; giveUp: boolean },
): Promise<void> {
  await db.query(
    `WITH failed AS (
       UPDATE watch_events SET leased_until = NULL, last_error = $3,
                               next_attempt_at = now() + make_interval(secs => $4)
       WHERE id = $2)
     UPDATE watches SET disabled_at = now(), disabled_reason = $5
     WHERE id = $1 AND $6::boolean AND disabled_at IS NULL`,
    [
      failure.watchId,
      failure.eventId,
      failure.error,
      failure.retrySeconds,
      `deliveries failed for a day; the last: ${failure.error}`,
      failure.giveUp,
    ],
  );
}
