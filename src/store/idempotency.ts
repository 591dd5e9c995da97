// Idempotency-Key claims: at most one request per (host, key) runs at a time, and a finished one's answer is kept
// for the key's lifetime so that a retry gets it back instead of applying the sync again. The answer is kept by the
// sync's own transaction, or for a refusal without one (store/sync.ts).
import { randomBytes } from 'node:crypto';
import type { Database, Queryable, Statement } from './db.js';
import { INSTANCE_DEAD_AFTER_SECONDS } from './instances.js';

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface IdempotencyPolicy {
  /** how long a finished key's answer is kept */
  ttlSeconds: number;
  /** how long a running claim blocks the key before another request may take it over */
  leaseSeconds: number;
  /** finished keys kept per host, and the bytes of their answers: past either, the oldest are forgotten */
  maxKeysPerHost: number;
  maxBytesPerHost: number;
  /** the claiming process (instances.ts); a claim of a process whose heartbeat stopped is taken over */
  instance: string;
}

/** A key held by a request: the key's digest, and the token that proves the claim when its answer is kept or it is released. */
export interface ClaimRef {
  key: string;
  token: string;
}

export type ClaimResult =
  /** this request holds the key now */
  | { kind: 'claimed'; claim: ClaimRef }
  /** another request holds the key and has not finished */
  | { kind: 'in_use' }
  /** a request with this key finished; its answer is replayed if the fingerprint matches */
  | { kind: 'finished'; fingerprint: string; answer: StoredAnswer };

/** Expired keys are purged a batch at a time by whoever claims a key, so no separate job is needed. */
const PURGE_BATCH = 100;

export async function claimIdempotencyKey(
  db: Queryable,
  hostId: number,
  key: string,
  policy: IdempotencyPolicy,
): Promise<ClaimResult> {
  // SKIP LOCKED: concurrent claims each purge rows no other purge holds, so two purges never wait on each other (two
  // DELETEs taking the same rows in different orders deadlock).
  await db.query(
    `DELETE FROM idempotency_keys
     WHERE (host_id, key) IN (
       SELECT host_id, key FROM idempotency_keys WHERE expires_at <= clock_timestamp() LIMIT $1 FOR UPDATE SKIP LOCKED)`,
    [PURGE_BATCH],
    { prepared: true },
  );
  const token = randomBytes(16).toString('hex');
  // A key that is free, expired, or held by a dead process's lapsed lease becomes this request's.
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows: taken } = await db.query<{ claim: string }>(
      `INSERT INTO idempotency_keys (host_id, key, status, claim, lease_until, created_at, expires_at, instance)
       VALUES ($1, $2, 'running', $3, clock_timestamp() + make_interval(secs => $4), clock_timestamp(),
               clock_timestamp() + make_interval(secs => $5), $6)
       ON CONFLICT (host_id, key) DO UPDATE
         SET status = 'running', claim = EXCLUDED.claim, lease_until = EXCLUDED.lease_until, fingerprint = NULL,
             response_status = NULL, response_headers = NULL, response_body = NULL,
             created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, instance = EXCLUDED.instance
         WHERE idempotency_keys.expires_at <= clock_timestamp()
            OR (idempotency_keys.status = 'running' AND idempotency_keys.lease_until <= clock_timestamp())
            OR (idempotency_keys.status = 'running' AND idempotency_keys.instance IS NOT NULL AND NOT EXISTS (
                  SELECT 1 FROM server_instances s
                  WHERE s.id = idempotency_keys.instance AND s.seen_at > clock_timestamp() - make_interval(secs => $7)))
       RETURNING claim`,
      [hostId, key, token, policy.leaseSeconds, policy.ttlSeconds, policy.instance, INSTANCE_DEAD_AFTER_SECONDS],
      { prepared: true },
    );
    if (taken[0]?.claim === token) return { kind: 'claimed', claim: { key, token } };

    const { rows } = await db.query<{
      status: string;
      fingerprint: string | null;
      response_status: number | null;
      response_headers: unknown;
      response_body: string | null;
    }>(
      `SELECT status, fingerprint, response_status, response_headers, response_body
       FROM idempotency_keys WHERE host_id = $1 AND key = $2`,
      [hostId, key],
    );
    const row = rows[0];
    // Released between the two statements: try to take it again.
    if (!row) continue;
    if (row.status === 'running') return { kind: 'in_use' };
    const headers = typeof row.response_headers === 'string' ? JSON.parse(row.response_headers) : row.response_headers;
    return {
      kind: 'finished',
      fingerprint: row.fingerprint ?? '',
      answer: {
        status: Number(row.response_status),
        headers: (headers ?? {}) as Record<string, string>,
        body: row.response_body ?? '',
      },
    };
  }
  return { kind: 'in_use' };
}

/** Frees the key after an answer that is not kept (401, 413, 429, 5xx…), so that the request can be retried. */
export async function releaseIdempotencyKey(db: Queryable, hostId: number, claim: ClaimRef): Promise<void> {
  await db.query(`DELETE FROM idempotency_keys WHERE host_id = $1 AND key = $2 AND claim = $3 AND status = 'running'`, [
    hostId,
    claim.key,
    claim.token,
  ]);
}

/** The finished keys a host may keep: past either bound, its oldest answers are forgotten (a retry is then new). */
export interface KeptAnswerCaps {
  maxKeysPerHost: number;
  maxBytesPerHost: number;
}

/** A finished request's answer, to be kept for its key's retries. */
export interface KeptAnswer {
  claim: ClaimRef;
  fingerprint: string;
  answer: StoredAnswer;
  caps: KeptAnswerCaps;
}

/**
 * The statements that keep an answer, in one transaction: the host's answers are kept one writer at a time (a
 * transaction-level advisory lock per host), the answer is stored, and the host's oldest finished answers past its
 * caps are forgotten. Serialised, the caps hold exactly whatever the concurrency, and two prunes of one host never
 * delete the same rows at once (which deadlocked). Running claims are never touched.
 */
export function keptAnswerStatements(hostId: number, kept: KeptAnswer): Statement[] {
  const { claim, fingerprint, answer, caps } = kept;
  return [
    { sql: `SELECT pg_advisory_xact_lock(hashtextextended('idempotency_keys', $1))`, params: [hostId] },
    {
      sql: `UPDATE idempotency_keys
            SET status = 'done', fingerprint = $4, response_status = $5, response_headers = $6::json, response_body = $7
            WHERE host_id = $1 AND key = $2 AND claim = $3 AND status = 'running'`,
      params: [hostId, claim.key, claim.token, fingerprint, answer.status, JSON.stringify(answer.headers), answer.body],
    },
    {
      sql: `DELETE FROM idempotency_keys WHERE host_id = $1 AND key IN (
              SELECT key FROM (
                SELECT key, row_number() OVER newest AS n, sum(octet_length(response_body)) OVER newest AS bytes
                FROM idempotency_keys WHERE host_id = $1 AND status = 'done'
                WINDOW newest AS (ORDER BY created_at DESC, key)) AS kept
              WHERE n > $2 OR bytes > $3)`,
      params: [hostId, caps.maxKeysPerHost, caps.maxBytesPerHost],
    },
  ];
}

/**
 * Keeps the answer to a refused request for its key, outside any sync's transaction. False when the claim is no
 * longer the request's (its lease lapsed and another request took the key).
 */
export async function keepRefusal(db: Database, hostId: number, kept: KeptAnswer): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [, stored] = await tx.queries(keptAnswerStatements(hostId, kept), { commit: true });
    return stored?.rowCount === 1;
  });
}
