// The API keys aggregate: issue, list, revoke, and authenticate by digest.
import { apiKeyPrefix, generateApiKey, hashApiKey } from '../catalog/api-keys.js';
import { newId } from '../catalog/ids.js';
import type { Queryable } from './db.js';
import type { HostStatus } from './hosts.js';
import { iso, isoOrNull } from './rows.js';

export type ApiKeyStatus = 'active' | 'revoked';

export interface ApiKey {
  id: string;
  prefix: string;
  status: ApiKeyStatus;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  /** what its creator called it ("billing", "staging"); null for keys issued without one */
  name: string | null;
}

/** A key as issued: the only time its plaintext exists outside the caller's hands. */
export interface IssuedApiKey extends ApiKey {
  key: string;
}

export interface KeyOwner {
  keyId: string;
  keyStatus: ApiKeyStatus;
  hostId: number;
  hostSlug: string;
  hostStatus: HostStatus;
  defaultCurrency: string;
}

const COLUMNS = 'id, prefix, status, created_at, revoked_at, last_used_at, name';

function toApiKey(row: Record<string, unknown>): ApiKey {
  return {
    id: String(row.id),
    prefix: String(row.prefix),
    status: row.status as ApiKeyStatus,
    created_at: iso(row.created_at),
    revoked_at: isoOrNull(row.revoked_at),
    last_used_at: isoOrNull(row.last_used_at),
    name: row.name === null || row.name === undefined ? null : String(row.name),
  };
}

export async function issueApiKey(db: Queryable, hostId: number, name: string | null = null): Promise<IssuedApiKey> {
  const key = generateApiKey();
  const { rows } = await db.query(
    `INSERT INTO api_keys (id, host_id, digest, prefix, name) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [newId('key'), hostId, hashApiKey(key), apiKeyPrefix(key), name],
  );
  return { ...toApiKey(rows[0]!), key };
}

export async function listApiKeys(db: Queryable, hostId: number): Promise<ApiKey[]> {
  const { rows } = await db.query(`SELECT ${COLUMNS} FROM api_keys WHERE host_id = $1 ORDER BY created_at, id`, [
    hostId,
  ]);
  return rows.map(toApiKey);
}

export async function revokeApiKey(db: Queryable, keyId: string): Promise<ApiKey | null> {
  const { rows } = await db.query(
    `UPDATE api_keys SET status = 'revoked', revoked_at = coalesce(revoked_at, now())
     WHERE id = $1 RETURNING ${COLUMNS}`,
    [keyId],
  );
  return rows[0] ? toApiKey(rows[0]) : null;
}

/** Revokes a key of this host only; null when the host has no such key. */
export async function revokeHostApiKey(db: Queryable, hostId: number, keyId: string): Promise<ApiKey | null> {
  const { rows } = await db.query(
    `UPDATE api_keys SET status = 'revoked', revoked_at = coalesce(revoked_at, now())
     WHERE id = $1 AND host_id = $2 RETURNING ${COLUMNS}`,
    [keyId, hostId],
  );
  return rows[0] ? toApiKey(rows[0]) : null;
}

/** Every key with its owner, by digest, as a subquery whose rows toKeyOwner reads: join or filter it on `digest`. */
export const KEY_OWNERS = `(SELECT k.digest, k.id AS key_id, k.status AS key_status, h.id AS host_id, h.slug,
       h.status AS host_status, h.default_currency
     FROM api_keys k JOIN hosts h ON h.id = k.host_id)`;

export async function findKeyOwner(db: Queryable, digest: Buffer): Promise<KeyOwner | null> {
  // Every request of a provider asks it: planned once per connection.
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT * FROM ${KEY_OWNERS} AS owner WHERE owner.digest = $1`,
    [digest],
    { prepared: true },
  );
  return rows[0] ? toKeyOwner(rows[0]) : null;
}

export function toKeyOwner(row: Record<string, unknown>): KeyOwner {
  return {
    keyId: String(row.key_id),
    keyStatus: row.key_status as ApiKeyStatus,
    hostId: Number(row.host_id),
    hostSlug: String(row.slug),
    hostStatus: row.host_status as HostStatus,
    defaultCurrency: String(row.default_currency),
  };
}
