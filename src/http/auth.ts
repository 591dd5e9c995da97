// Authentication: providers by API key (digest lookup), the operator by the admin token.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { hashApiKey, isWellFormedApiKey } from '../catalog/api-keys.js';
import { findKeyOwner, type KeyOwner } from '../store/api-keys.js';
import type { Database } from '../store/db.js';
import type { AuthFailures } from './auth-failures.js';
import { Problem } from './problems.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** failed authentications per client address (auth-failures.ts) */
    authFailures: AuthFailures;
  }
}

const CHALLENGE = { 'www-authenticate': 'Bearer realm="hostdir"' };

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^bearer[ ]+([^\s]+)[ ]*$/i.exec(header);
  return match ? match[1]! : null;
}

function unauthorized(detail: string): Problem {
  return new Problem('UNAUTHORIZED', detail, { headers: CHALLENGE });
}

/** A client address that failed too often is refused before its credentials are even looked at. */
function refuseIfThrottled(request: FastifyRequest): void {
  const retryAfter = request.server.authFailures.blockedFor(request.ip);
  if (retryAfter > 0) {
    throw new Problem('RATE_LIMITED', `too many failed authentications from this address; retry in ${retryAfter} s`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  }
}

function failed(request: FastifyRequest, detail: string): Problem {
  request.server.authFailures.recordFailure(request.ip);
  return unauthorized(detail);
}

/**
 * Resolves the key's owner before the body is read. Malformed and unknown keys take the same path (a digest
 * lookup) so that their answers cannot be told apart by timing.
 */
export function authenticateProvider(db: Database, request: FastifyRequest): Promise<KeyOwner> {
  return authenticateProviderBy(request, (digest) => findKeyOwner(db, digest));
}

/** authenticateProvider with the owner looked up by `lookup`, which may read more about the host in the same query. */
export async function authenticateProviderBy<T extends KeyOwner>(
  request: FastifyRequest,
  lookup: (digest: Buffer) => Promise<T | null>,
): Promise<T> {
  refuseIfThrottled(request);
  const token = bearerToken(request);
  if (token === null) throw failed(request, 'send an API key as "Authorization: Bearer rk_…"');
  const owner = await lookup(hashApiKey(token));
  if (!owner || !isWellFormedApiKey(token)) throw failed(request, 'the API key is malformed or unknown');
  if (owner.keyStatus !== 'active') throw new Problem('KEY_REVOKED', 'this API key has been revoked');
  // A provider that signed up syncs before it is listed ('pending'): its catalogue is ready when it is.
  if (owner.hostStatus === 'suspended') throw new Problem('KEY_REVOKED', 'the provider of this API key is suspended');
  return owner;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function checkAdminToken(expected: string, request: FastifyRequest): void {
  refuseIfThrottled(request);
  const token = bearerToken(request);
  if (token === null || !timingSafeEqual(digest(token), digest(expected))) {
    throw failed(request, 'send the admin token as "Authorization: Bearer <token>"');
  }
}
