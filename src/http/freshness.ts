// Caching of public reads: a browser may reuse an answer for one second, then must revalidate it by ETag. No
// server-side cache exists, so a page reflects a sync as soon as its transaction commits.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

const PUBLIC_CACHE_CONTROL = 'public, max-age=1, must-revalidate';

function etagOf(payload: string | Buffer): string {
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
    const etag = etagOf(payload);
    reply.header('etag', etag).header('cache-control', PUBLIC_CACHE_CONTROL).header('vary', 'accept-encoding');
    if (matches(request.headers['if-none-match'], etag)) {
      // A 304 has no content: neither a Content-Type nor a Content-Length (RFC 9110 15.4.5). Fastify adds the
      // latter unless the payload is null.
      reply.code(304).removeHeader('content-type');
      return null;
    }
    return payload;
  });
}
