// The rules of providers joining on their own, free of I/O: what an email address and a website domain must look
// like, when a name is a look-alike of one already listed, and the one-time tokens mailed and published.
import { createHash, randomBytes } from 'node:crypto';
import { domainToASCII } from 'node:url';

/** Tokens of one-time links: a prefix the request log redacts (http/app.ts), then 256 random bits. */
export const LINK_TOKEN_PREFIX = 'lnk_';

/** How long a mailed link may be used, and how long a session lasts. */
export const LINK_TTL_SECONDS = 30 * 60;
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
/** Links mailed to one address per hour, whoever asks: past it the request is answered 429 and nothing is sent. */
export const LINKS_PER_ADDRESS_PER_HOUR = 5;
/** Active keys a provider may hold at once: two, so that a rotation never leaves it without one. */
export const MAX_ACTIVE_KEYS = 2;

export function newLinkToken(): string {
  return `${LINK_TOKEN_PREFIX}${randomBytes(32).toString('hex')}`;
}

export function isLinkToken(candidate: string): boolean {
  return /^lnk_[0-9a-f]{64}$/.test(candidate);
}

/** The token a provider publishes to prove its domain; not a secret (it is published), but unguessable. */
export function newDomainToken(): string {
  return `hostdir-verification=${randomBytes(16).toString('hex')}`;
}

/** A session's id, held in the encrypted cookie; the store keeps its digest. */
export function newSessionId(): string {
  return randomBytes(32).toString('hex');
}

export function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** An address as stored and compared: trimmed, lower case; null when it is not one. */
export function normalEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  if (email.length < 3 || email.length > 254) return null;
  return /^[^\s@<>()",;:\\[\]]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/.test(email)
    ? email
    : null;
}

/**
 * The domain of what a provider typed as its website ("https://www.Acme.example/", "acme.example"): lower case,
 * international names in their ASCII form, without "www." nor a port, path or trailing dot; null when it is no public
 * domain name (an address, a single label, localhost).
 */
export function normalDomain(raw: string): string | null {
  let text = raw.trim();
  if (!text || text.length > 300) return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `https://${text}`;
  let host: string;
  try {
    const url = new URL(text);
    if (url.username || url.password) return null;
    host = url.hostname;
  } catch {
    return null;
  }
  host = domainToASCII(host.replace(/\.$/, '')).toLowerCase();
  if (host.startsWith('www.')) host = host.slice(4);
  if (!host || host.length > 253 || !host.includes('.')) return null;
  if (/^[0-9.]+$/.test(host) || host.endsWith('.localhost') || host.endsWith('.local')) return null;
  const labels = host.split('.');
  if (!labels.every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label))) return null;
  if (/^[0-9]+$/.test(labels.at(-1)!)) return null;
  return host;
}

// Characters and pairs that read alike, folded to one form; words every provider's name may carry, left out.
const CONFUSABLES: [RegExp, string][] = [
  [/rn/g, 'm'],
  [/vv/g, 'w'],
  [/[0]/g, 'o'],
  [/[1il|]/g, 'l'],
  [/[5]/g, 's'],
  [/[3]/g, 'e'],
  [/[4]/g, 'a'],
  [/[7]/g, 't'],
  [/[8]/g, 'b'],
];
const COMMON_WORDS = /\b(hosting|host|hosts|cloud|inc|ltd|llc|gmbh|sarl|bv|co|company|the|web|servers?)\b/g;

/** What a name (or slug) reads as: accents, case, punctuation, common words and look-alike characters folded away. */
export function nameSkeleton(name: string): string {
  let text = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ');
  const withoutCommon = text.replace(COMMON_WORDS, ' ').trim();
  if (withoutCommon) text = withoutCommon;
  text = text.replace(/\s+/g, '');
  for (const [pattern, replacement] of CONFUSABLES) text = text.replace(pattern, replacement);
  return text.replace(/(.)\1+/g, '$1');
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 1) return 2;
  let previous = Array.from({ length: b.length + 1 }, (_, k) => k);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The existing name or slug that `candidate` could be mistaken for, or null: the same skeleton, or (for names long
 * enough not to collide by chance) one character apart.
 */
export function lookAlikeOf(candidate: string, existing: readonly string[]): string | null {
  const mine = nameSkeleton(candidate);
  if (!mine) return null;
  for (const other of existing) {
    const theirs = nameSkeleton(other);
    if (!theirs) continue;
    if (mine === theirs) return other;
    if (mine.length >= 6 && theirs.length >= 6 && editDistance(mine, theirs) <= 1) return other;
  }
  return null;
}
