// Checks that a provider controls its domain: the token published as a DNS TXT record at _hostdir.<domain>, or as
// https://<domain>/.well-known/hostdir-verification.txt. Both bounded in time and size; the fetch refuses loopback,
// private and link-local addresses (net/outbound.ts) unless the operator allows them, and follows redirects only
// within the domain itself, so that a site redirecting elsewhere (an open redirect) proves nothing.
import { Resolver } from 'node:dns/promises';
import { OutboundRefusedError, requestOutbound, type Resolve } from '../net/outbound.js';

export const WELL_KNOWN_PATH = '/.well-known/hostdir-verification.txt';
/** The most a DNS answer or the file may take. */
export const DOMAIN_CHECK_TIMEOUT_MS = 5_000;
/** The file holds a line or two: more than this is not a verification file. */
const WELL_KNOWN_MAX_BYTES = 4096;
const MAX_REDIRECTS = 3;

export interface DomainCheckOptions {
  allowPrivate: boolean;
  /** DNS servers ("127.0.0.1:5353") asked instead of the system's: for the TXT record and the fetch's names */
  dnsServers: readonly string[];
  /** null: https on its port; a number: plain http on that port (a test's own web server) */
  httpPort: number | null;
  timeoutMs?: number;
}

export type DomainCheck = { verified: true; how: 'dns' | 'https' } | { verified: false; why: string };

function resolverOf(options: DomainCheckOptions): Resolver {
  const timeout = options.timeoutMs ?? DOMAIN_CHECK_TIMEOUT_MS;
  const resolver = new Resolver({ timeout: Math.max(1, Math.floor(timeout / 2)), tries: 2 });
  if (options.dnsServers.length > 0) resolver.setServers([...options.dnsServers]);
  return resolver;
}

/** A name's addresses through `resolver`, as requestOutbound's lookup wants them. */
function resolveWith(resolver: Resolver): Resolve {
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const found = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (found.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
    return found;
  };
}

async function checkTxt(domain: string, token: string, resolver: Resolver): Promise<string | null> {
  try {
    const records = await resolver.resolveTxt(`_hostdir.${domain}`);
    if (records.some((chunks) => chunks.join('').trim() === token)) return null;
    return `the TXT record at _hostdir.${domain} does not hold the token`;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return `no TXT record at _hostdir.${domain}`;
    return `the TXT record at _hostdir.${domain} could not be read (${code ?? 'error'})`;
  }
}

function sameSite(host: string, domain: string): boolean {
  return host === domain || host === `www.${domain}`;
}

async function checkWellKnown(
  domain: string,
  token: string,
  options: DomainCheckOptions,
  resolve: Resolve | undefined,
): Promise<string | null> {
  const timeoutMs = options.timeoutMs ?? DOMAIN_CHECK_TIMEOUT_MS;
  let target =
    options.httpPort === null
      ? `https://${domain}${WELL_KNOWN_PATH}`
      : `http://${domain}:${options.httpPort}${WELL_KNOWN_PATH}`;
  const shown = `https://${domain}${WELL_KNOWN_PATH}`;
  try {
    for (let hop = 0; ; hop++) {
      const answer = await requestOutbound(target, {
        allowPrivate: options.allowPrivate,
        timeoutMs,
        maxBytes: WELL_KNOWN_MAX_BYTES,
        maxRedirects: 0,
        ...(resolve ? { resolve } : {}),
      });
      const location = answer.headers.location;
      if (answer.status >= 300 && answer.status < 400 && location) {
        const next = new URL(location, target);
        if (!sameSite(next.hostname, domain)) return `${shown} redirects to another site (${next.hostname})`;
        if (hop >= MAX_REDIRECTS) return `${shown} redirects more than ${MAX_REDIRECTS} times`;
        target = next.toString();
        continue;
      }
      if (answer.status !== 200) return `${shown} answered ${answer.status}`;
      const lines = answer.body
        .toString('utf8')
        .split(/\r?\n/)
        .map((line) => line.trim());
      return lines.includes(token) ? null : `${shown} does not hold the token`;
    }
  } catch (error) {
    if (error instanceof OutboundRefusedError) return `${shown} was not fetched: ${error.message}`;
    return `${shown} could not be fetched (${(error as { code?: string }).code ?? (error as Error).message})`;
  }
}

/** Whether `domain` publishes `token` in either place; when neither, why not (both reasons). */
export async function checkDomain(domain: string, token: string, options: DomainCheckOptions): Promise<DomainCheck> {
  const resolver = resolverOf(options);
  const byDns = await checkTxt(domain, token, resolver);
  if (byDns === null) return { verified: true, how: 'dns' };
  const resolve = options.dnsServers.length > 0 ? resolveWith(resolver) : undefined;
  const byHttps = await checkWellKnown(domain, token, options, resolve);
  if (byHttps === null) return { verified: true, how: 'https' };
  return { verified: false, why: `${byDns}; ${byHttps}` };
}
