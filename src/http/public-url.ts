// The directory's public address, for the absolute links search engines need: canonical links, the sitemap,
// robots.txt, structured data.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/**
 * PUBLIC_URL when it is set. Without it, the address is taken from the request only where TRUST_PROXY names the
 * proxies in front: Fastify then believes X-Forwarded-Proto and X-Forwarded-Host (else Host) from those proxies
 * alone, which the operator has set up to pass the address visitors use. Otherwise a Host header is whatever the
 * client sent, and would end up in links a shared cache hands to others: the links name the address the server
 * itself listens on (http://127.0.0.1:3000 by default), right for a server used where it runs.
 */
export function publicBaseUrl(
  config: Pick<Config, 'publicUrl' | 'trustProxy' | 'host'>,
  request: FastifyRequest,
): string {
  if (config.publicUrl) return config.publicUrl;
  if (config.trustProxy.length > 0) {
    const forwarded = `${request.protocol}://${request.host}`;
    const url = URL.canParse(forwarded) ? new URL(forwarded) : null;
    if (url && url.href === `${url.origin}/`) return url.origin;
  }
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host;
  const port = request.socket.localPort;
  return `http://${host.includes(':') ? `[${host}]` : host}${port === undefined ? '' : `:${port}`}`;
}
