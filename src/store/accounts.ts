// Providers' own accounts: sign-up, the people of a host, their one-time links and sessions, the domain a host
// proves, the operator's approvals, and the audit record. Every read of a person's is keyed by their host.
import { newId } from '../catalog/ids.js';
import type { Database, Queryable } from './db.js';
import { SlugTakenError, type HostStatus } from './hosts.js';
import { iso, isoOrNull } from './rows.js';

export type Approval = 'none' | 'pending' | 'approved' | 'rejected';

export interface HostDomain {
  domain: string;
  token: string;
  verified_at: string | null;
  approval: Approval;
  checked_at: string | null;
  check_result: string | null;
}

export interface Person {
  id: string;
  email: string;
  confirmed_at: string | null;
  invited_by: string | null;
  created_at: string;
}

/** Who a valid session belongs to. */
export interface SignedIn {
  personId: string;
  email: string;
  hostId: number;
  hostSlug: string;
  hostName: string;
  hostStatus: HostStatus;
}

export class DomainTakenError extends Error {
  constructor(readonly domain: string) {
    super(`the domain ${domain} belongs to a provider already`);
  }
}

export class EmailTakenError extends Error {
  constructor(readonly email: string) {
    super(`${email} already signs in for a provider`);
  }
}

const UNIQUE_VIOLATION = '23505';

function constraintOf(error: unknown): string | null {
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code !== UNIQUE_VIOLATION) return null;
  return typeof e.constraint === 'string' ? e.constraint : String(e.message ?? '');
}

/** Every host's name and slug, for the look-alike check. */
export async function hostNamesAndSlugs(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ name: string; slug: string }>('SELECT name, slug FROM hosts');
  return rows.flatMap((row) => [row.name, row.slug]);
}

/** A new host (pending), its domain and its first person, in one transaction. */
export async function signUp(
  db: Database,
  input: { name: string; slug: string; currency: string; domain: string; token: string; email: string },
): Promise<{ hostId: number; person: Person }> {
  try {
    return await db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: number }>(
        `INSERT INTO hosts (slug, name, default_currency, status) VALUES ($1, $2, $3, 'pending')
         ON CONFLICT (slug) DO NOTHING RETURNING id`,
        [input.slug, input.name, input.currency],
      );
      if (rows.length === 0) throw new SlugTakenError(input.slug);
      const hostId = Number(rows[0]!.id);
      await tx.query('INSERT INTO host_domains (host_id, domain, token) VALUES ($1, $2, $3)', [
        hostId,
        input.domain,
        input.token,
      ]);
      const person = await insertPerson(tx, hostId, input.email, null);
      return { hostId, person };
    });
  } catch (error) {
    const constraint = constraintOf(error);
    if (constraint?.includes('host_domains_domain')) throw new DomainTakenError(input.domain);
    if (constraint?.includes('host_people_email')) throw new EmailTakenError(input.email);
    if (constraint?.includes('hosts_slug')) throw new SlugTakenError(input.slug);
    throw error;
  }
}

const PERSON_COLUMNS = 'id, email, confirmed_at, invited_by, created_at';

function toPerson(row: Record<string, unknown>): Person {
  return {
    id: String(row.id),
    email: String(row.email),
    confirmed_at: isoOrNull(row.confirmed_at),
    invited_by: row.invited_by === null ? null : String(row.invited_by),
    created_at: iso(row.created_at),
  };
}

async function insertPerson(db: Queryable, hostId: number, email: string, invitedBy: string | null): Promise<Person> {
  const { rows } = await db.query(
    `INSERT INTO host_people (id, host_id, email, invited_by) VALUES ($1, $2, $3, $4) RETURNING ${PERSON_COLUMNS}`,
    [newId('per'), hostId, email, invitedBy],
  );
  return toPerson(rows[0]!);
}

/** Adds a person to a host; EmailTakenError when the address already signs in for a provider. */
export async function invitePerson(db: Queryable, hostId: number, email: string, invitedBy: string): Promise<Person> {
  try {
    return await insertPerson(db, hostId, email, invitedBy);
  } catch (error) {
    if (constraintOf(error)?.includes('host_people_email')) throw new EmailTakenError(email);
    throw error;
  }
}

export async function listPeople(db: Queryable, hostId: number): Promise<Person[]> {
  const { rows } = await db.query(
    `SELECT ${PERSON_COLUMNS} FROM host_people WHERE host_id = $1 AND removed_at IS NULL ORDER BY created_at, id`,
    [hostId],
  );
  return rows.map(toPerson);
}

/** Removes a person of the host and ends their sessions; null when the host has no such person. */
export async function removePerson(db: Database, hostId: number, personId: string): Promise<Person | null> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query(
      `UPDATE host_people SET removed_at = now() WHERE host_id = $1 AND id = $2 AND removed_at IS NULL
       RETURNING ${PERSON_COLUMNS}`,
      [hostId, personId],
    );
    if (rows.length === 0) return null;
    await tx.query('UPDATE person_sessions SET ended_at = now() WHERE person_id = $1 AND ended_at IS NULL', [personId]);
    return toPerson(rows[0]!);
  });
}

/** The person (not removed) an address belongs to. */
export async function findPersonByEmail(db: Queryable, email: string): Promise<Person | null> {
  const { rows } = await db.query(`SELECT ${PERSON_COLUMNS} FROM host_people WHERE email = $1 AND removed_at IS NULL`, [
    email,
  ]);
  return rows[0] ? toPerson(rows[0]) : null;
}

/** Links mailed to an address within the last `seconds`. */
export async function linksSentRecently(db: Queryable, email: string, seconds: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM person_links WHERE email = $1 AND created_at > now() - make_interval(secs => $2)`,
    [email, seconds],
  );
  return Number(rows[0]?.n ?? 0);
}

export async function storeLink(
  db: Queryable,
  link: { digest: Buffer; personId: string; email: string; ttlSeconds: number },
): Promise<void> {
  await db.query(
    `INSERT INTO person_links (digest, person_id, email, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
    [link.digest, link.personId, link.email, link.ttlSeconds],
  );
}

/**
 * Uses a link once: marks it used and confirms its person's address, if it is unused, unexpired and its person not
 * removed. Null otherwise (unknown, used, expired), all alike.
 */
export async function useLink(db: Queryable, digest: Buffer): Promise<{ personId: string; hostId: number } | null> {
  const { rows } = await db.query<{ person_id: string; host_id: number }>(
    `WITH used AS (
       UPDATE person_links l SET used_at = now()
       FROM host_people p
       WHERE l.digest = $1 AND l.used_at IS NULL AND l.expires_at > now()
         AND p.id = l.person_id AND p.removed_at IS NULL
       RETURNING p.id AS person_id, p.host_id
     ), confirmed AS (
       UPDATE host_people SET confirmed_at = coalesce(confirmed_at, now()) WHERE id IN (SELECT person_id FROM used)
     )
     SELECT person_id, host_id FROM used`,
    [digest],
  );
  return rows[0] ? { personId: String(rows[0].person_id), hostId: Number(rows[0].host_id) } : null;
}

export async function startSession(
  db: Queryable,
  session: { digest: Buffer; personId: string; hostId: number; ttlSeconds: number },
): Promise<void> {
  await db.query(
    `INSERT INTO person_sessions (digest, person_id, host_id, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
    [session.digest, session.personId, session.hostId, session.ttlSeconds],
  );
}

/** Who a session belongs to, while it is neither ended nor expired and its person not removed. */
export async function findSession(db: Queryable, digest: Buffer): Promise<SignedIn | null> {
  const { rows } = await db.query(
    `SELECT p.id AS person_id, p.email, h.id AS host_id, h.slug, h.name, h.status
     FROM person_sessions s JOIN host_people p ON p.id = s.person_id JOIN hosts h ON h.id = s.host_id
     WHERE s.digest = $1 AND s.ended_at IS NULL AND s.expires_at > now() AND p.removed_at IS NULL`,
    [digest],
    { prepared: true },
  );
  const row = rows[0];
  if (!row) return null;
  return {
    personId: String(row.person_id),
    email: String(row.email),
    hostId: Number(row.host_id),
    hostSlug: String(row.slug),
    hostName: String(row.name),
    hostStatus: row.status as HostStatus,
  };
}

export async function endSession(db: Queryable, digest: Buffer): Promise<void> {
  await db.query('UPDATE person_sessions SET ended_at = now() WHERE digest = $1 AND ended_at IS NULL', [digest]);
}

const DOMAIN_COLUMNS = 'domain, token, verified_at, approval, checked_at, check_result';

function toDomain(row: Record<string, unknown>): HostDomain {
  return {
    domain: String(row.domain),
    token: String(row.token),
    verified_at: isoOrNull(row.verified_at),
    approval: row.approval as Approval,
    checked_at: isoOrNull(row.checked_at),
    check_result: row.check_result === null ? null : String(row.check_result),
  };
}

export async function findHostDomain(db: Queryable, hostId: number): Promise<HostDomain | null> {
  const { rows } = await db.query(`SELECT ${DOMAIN_COLUMNS} FROM host_domains WHERE host_id = $1`, [hostId]);
  return rows[0] ? toDomain(rows[0]) : null;
}

/** Records a check of the domain that failed, with why. */
export async function recordDomainCheck(db: Queryable, hostId: number, result: string): Promise<void> {
  await db.query('UPDATE host_domains SET checked_at = now(), check_result = $2 WHERE host_id = $1', [hostId, result]);
}

/**
 * Marks the domain proved. Listed at once (a pending host becomes active), or waiting for the operator when
 * `approvalRequired`. A suspended host stays suspended.
 */
export async function markDomainVerified(
  db: Database,
  hostId: number,
  approvalRequired: boolean,
  result: string,
): Promise<HostDomain> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query(
      `UPDATE host_domains SET verified_at = coalesce(verified_at, now()), checked_at = now(), check_result = $3,
         approval = CASE WHEN approval = 'none' AND $2::boolean THEN 'pending' ELSE approval END
       WHERE host_id = $1 RETURNING ${DOMAIN_COLUMNS}`,
      [hostId, approvalRequired, result],
    );
    const domain = toDomain(rows[0]!);
    if (domain.approval === 'none' || domain.approval === 'approved') {
      await tx.query(`UPDATE hosts SET status = 'active', updated_at = now() WHERE id = $1 AND status = 'pending'`, [
        hostId,
      ]);
    }
    return domain;
  });
}

export interface PendingHost {
  slug: string;
  name: string;
  domain: string;
  verified_at: string;
}

export async function listPendingApprovals(db: Queryable): Promise<PendingHost[]> {
  const { rows } = await db.query(
    `SELECT h.slug, h.name, d.domain, d.verified_at FROM host_domains d JOIN hosts h ON h.id = d.host_id
     WHERE d.approval = 'pending' ORDER BY d.verified_at, h.slug`,
  );
  return rows.map((row) => ({
    slug: String(row.slug),
    name: String(row.name),
    domain: String(row.domain),
    verified_at: iso(row.verified_at),
  }));
}

/**
 * The operator's decision on a host waiting for approval: approved hosts are listed, rejected ones suspended.
 * Null when the host is not waiting.
 */
export async function decideApproval(
  db: Database,
  slug: string,
  approve: boolean,
): Promise<{ hostId: number; status: HostStatus } | null> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ host_id: number }>(
      `UPDATE host_domains d SET approval = $2, decided_at = now() FROM hosts h
       WHERE h.id = d.host_id AND h.slug = $1 AND d.approval = 'pending' RETURNING d.host_id`,
      [slug, approve ? 'approved' : 'rejected'],
    );
    if (rows.length === 0) return null;
    const status: HostStatus = approve ? 'active' : 'suspended';
    const hostId = Number(rows[0]!.host_id);
    await tx.query(`UPDATE hosts SET status = $2, updated_at = now() WHERE id = $1 AND status = 'pending'`, [
      hostId,
      status,
    ]);
    return { hostId, status };
  });
}

export interface AuditEvent {
  at: string;
  actor: string;
  action: string;
  detail: string | null;
}

export async function recordAudit(
  db: Queryable,
  hostId: number,
  event: { actor: string; action: string; detail?: string | null },
): Promise<void> {
  await db.query('INSERT INTO audit_events (host_id, actor, action, detail) VALUES ($1, $2, $3, $4)', [
    hostId,
    event.actor,
    event.action,
    event.detail ?? null,
  ]);
}

/** The host's audit record, newest first. */
export async function listAudit(db: Queryable, hostId: number, limit = 200): Promise<AuditEvent[]> {
  const { rows } = await db.query(
    'SELECT at, actor, action, detail FROM audit_events WHERE host_id = $1 ORDER BY id DESC LIMIT $2',
    [hostId, limit],
  );
  return rows.map((row) => ({
    at: iso(row.at),
    actor: String(row.actor),
    action: String(row.action),
    detail: row.detail === null ? null : String(row.detail),
  }));
}
