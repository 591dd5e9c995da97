// Requests hostdir makes to addresses others name: webhook deliveries, domain-verification fetches. Whoever names
// the URL must not be able to reach what only the server can (its loopback, the private network it sits in, the
// cloud's metadata address): every address a name resolves to is checked when the connection is made — not before,
// so that a name answering differently the second time (DNS rebinding) gains nothing — and redirects are followed by
// hand, each target checked again. Time and size are bounded.
import { BlockList, isIP, type LookupFunction } from 'node:net';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';

/** Addresses no outside party may make hostdir connect to, unless the operator allows private targets. */
const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** Whether `address` (IPv4 or IPv6) is one anyone on the internet could reach. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NOT_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1, or NAT64's 64:ff9b::7f00:1) is judged as the IPv4 it carries.
  const carried = carriedIpv4(address);
  if (carried) return !NOT_PUBLIC.check(carried, 'ipv4');
  return !NOT_PUBLIC.check(address, 'ipv6');
}

function carriedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export class OutboundRefusedError extends Error {}

export interface OutboundOptions {
  /** the operator's ALLOW_PRIVATE_TARGETS: loopback, private and link-local addresses may be reached */
  allowPrivate: boolean;
  /** the whole exchange, connection to last byte */
  timeoutMs: number;
  /** the most of the answer's body kept; past it the exchange is ended and refused */
  maxBytes: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** redirects followed (each target checked again); 0: a redirect is the answer */
  maxRedirects?: number;
  /** how names are resolved (default: the system's resolver, as every other program on the machine) */
  resolve?: Resolve;
}

/** Every address a name resolves to. */
export type Resolve = (hostname: string) => Promise<dns.LookupAddress[]>;

const systemResolve: Resolve = (hostname) => dns.promises.lookup(hostname, { all: true });

export interface OutboundAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** the URL that answered, after redirects */
  url: string;
}

/**
 * Why `raw` cannot be a target, or null if it can: http(s) only, no credentials, and a host that is not written as a
 * non-public address (a name is checked again when it is resolved).
 */
export function refusedTarget(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http:// or https:// URL';
  if (url.username || url.password) return 'must not carry a user name or password';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate) {
    if (isIP(host) && !isPublicAddress(host)) return 'names a loopback, private or link-local address';
    if (host === 'localhost' || host.endsWith('.localhost')) return 'names this machine';
  }
  return null;
}

/** A lookup that hands the connection only public addresses (or any, when private targets are allowed). */
function checkedLookup(allowPrivate: boolean, resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    resolve(hostname).then(
      (found) => {
        const addresses = found.filter((address) => family === 0 || address.family === family);
        const usable = allowPrivate ? addresses : addresses.filter(({ address }) => isPublicAddress(address));
        if (usable.length === 0) {
          return callback(
            new OutboundRefusedError(`${hostname} resolves to no public address (loopback, private or link-local)`),
            '',
            0,
          );
        }
        if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, usable);
        callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** One request to a URL someone else named, bounded and checked as above. */
export async function requestOutbound(raw: string, options: OutboundOptions): Promise<OutboundAnswer> {
  const deadline = Date.now() + options.timeoutMs;
  let target = raw;
  for (let redirects = 0; ; redirects++) {
    const why = refusedTarget(target, options.allowPrivate);
    if (why) throw new OutboundRefusedError(`${target} ${why}`);
    const answer = await once(target, options, deadline);
    const location = answer.headers.location;
    if (answer.status >= 300 && answer.status < 400 && location && redirects < (options.maxRedirects ?? 0)) {
      target = new URL(location, target).toString();
      continue;
    }
    return answer;
  }
}

function once(target: string, options: OutboundOptions, deadline: number): Promise<OutboundAnswer> {
  const url = new URL(target);
  const client = url.protocol === 'https:' ? https : http;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const remaining = Math.max(1, deadline - Date.now());
    const request = client.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: { 'user-agent': 'hostdir', ...options.headers },
        // A literal address skips the lookup: it is checked here instead.
        lookup: checkedLookup(options.allowPrivate, options.resolve ?? systemResolve),
        // A connection of its own each time: a kept-alive one, made for another request, was checked for that one.
        agent: false,
        timeout: remaining,
        signal: AbortSignal.timeout(remaining),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            request.destroy(new OutboundRefusedError(`the answer is larger than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
            url: target,
          }),
        );
        response.on('error', reject);
      },
    );
    if (isIP(host) && !options.allowPrivate && !isPublicAddress(host)) {
      request.destroy(new OutboundRefusedError(`${host} is a loopback, private or link-local address`));
    }
    request.on('timeout', () => request.destroy(new OutboundRefusedError(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', (error) =>
      reject(
        error.name === 'AbortError' ? new OutboundRefusedError(`no answer within ${options.timeoutMs} ms`) : error,
      ),
    );
    request.end(options.body);
  });
}
