// Caching of public reads, against the directory's freshness promise (docs/operations.md, "Caching in front"): a sync shows on
// every public page within REPLICA_MAX_LAG_SECONDS + 10 + 6 seconds, however many caches stand between.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * A shared cache (nginx, a CDN) keeps an answer fresh for s-maxage seconds, then may hand out the stale copy for
 * stale-while-revalidate seconds more while one request refreshes it in the background: no visitor waits for the
 * database, and no copy is more than 10 seconds old. A browser keeps its copy one second (max-age), then may show
 * it while revalidating by ETag for the same 5 seconds.
 */
export const SHARED_CACHE_SECONDS = { sMaxage: 5, staleWhileRevalidate: 5 } as const;
export const PUBLIC_CACHE_CONTROL = `public, max-age=1, s-maxage=${SHARED_CACHE_SECONDS.sMaxage}, stale-while-revalidate=${SHARED_CACHE_SECONDS.staleWhileRevalidate}`;
/** Everything else (provider and admin answers, errors, probes): never stored by any cache. */
export const PRIVATE_CACHE_CONTROL = 'no-store';

function etagOf(payload: Buffer): string {
  return `W/"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag === etag || `W/${tag}` === etag;
  });
}

/** For the routes of the plugin it is called in: ETag on every 200, 304 when the client already holds it. */
export function revalidatedByEtag(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 200 || (request.method !== 'GET' && request.method !== 'HEAD')) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    // Encoded once: the digest, the Content-Length, compression and the socket then read the same bytes, where a
    // string would be encoded (or measured) by each of them.
    const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
    const etag = etagOf(body);
    reply.header('etag', etag).header('cache-control', PUBLIC_CACHE_CONTROL).header('vary', 'accept-encoding');
    if (matches(request.headers['if-none-match'], etag)) {
      // A 304 has no content: neither a Content-Type nor a Content-Length (RFC 9110 15.4.5). Fastify adds the
      // latter unless the payload is null.
      reply.code(304).removeHeader('content-type');
      return null;
    }
    return body;
  });
}
