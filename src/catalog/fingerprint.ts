// The content fingerprint: "content differs" (contract section 2) is "fingerprints differ".
//
// Every sync fingerprints every product it receives (50 000 at most), so this is on the hot path of even an
// unchanged resend. The content is fed straight into a 128-bit hash, field by field, without first building a
// serialization: building one string per product and hashing it with SHA-1 cost about six times as much.
//
// The fed stream is self-delimiting, so two products share it only when their content is equal:
//   string  its UTF-16 length, then its code units two to a 32-bit word     null  the word NULL
//   number  the word NUMBER, then the two words of its IEEE 754 bits         list  its count, then its items
// Fields come in the order of the table of product fields (product-fields.ts), each as its storage says, so each
// position's type is known. Specs are [key, value] pairs sorted by key: key order carries no meaning. Tiers keep their
// order: it is content; their canonical_period follows from period, so it adds nothing. A count (stock) adds
// nothing when null, and the word COUNT, its field's position and its value otherwise: a field appended to the table
// that way leaves the fingerprint of every product without it as it was, so that no stored product shows as updated
// by the change, and the position keeps two such fields apart.
//
// The hash is MurmurHash3's x86 128-bit block function over those words. It is not cryptographic, and need not
// be: a fingerprint is only compared with the same host's previous fingerprint of the same product, so a crafted
// collision could only hide the host's own update from itself; accidental ones are 2^-128-rare.

import { PRODUCT_FIELD_NAMES, PRODUCT_FIELDS, type Storage } from './product-fields.js';
import type { PricingTier, ProductContent } from './types.js';

const NULL = 0xffffffff;
const NUMBER = 0xfffffffe;
const COUNT = 0xfffffffd;

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

// The words of the product being fingerprinted: fingerprints are computed one at a time, synchronously, into this
// reused buffer, then hashed in one tight loop (locals stay unboxed there; module-level state would not).
let words = new Int32Array(1024);
let length = 0;

const float = new Float64Array(1);
const floatWords = new Int32Array(float.buffer);

function word(w: number): void {
  if (length === words.length) {
    const grown = new Int32Array(words.length * 2);
    grown.set(words);
    words = grown;
  }
  words[length++] = w;
}

function text(s: string): void {
  const n = s.length;
  if (length + 1 + (n >> 1) + 1 > words.length) {
    const grown = new Int32Array(Math.max(words.length * 2, length + n + 2));
    grown.set(words);
    words = grown;
  }
  const w = words;
  let at = length;
  w[at++] = n;
  let k = 0;
  for (; k + 1 < n; k += 2) w[at++] = s.charCodeAt(k) | (s.charCodeAt(k + 1) << 16);
  if (k < n) w[at++] = s.charCodeAt(k);
  length = at;
}

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const HEX_DIGITS = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));

// The fingerprint's 32 hex digits are written as character codes and made into a string in one step: joined from
// pieces, it would be a rope of concatenations, about four times its size, and a sync keeps one per product.
const digits = new Array<number>(32).fill(0);

function writeHex(h: number, at: number): void {
  for (let k = at + 7; k >= at; k--) {
    digits[k] = HEX_DIGITS[h & 15]!;
    h >>>= 4;
  }
}

/** MurmurHash3 x86 128 over words[0..n), zero-padded to whole blocks; n itself goes into the finalization. */
function hash128(w: Int32Array, n: number): string {
  let h1 = 0x9747b28c | 0;
  let h2 = h1;
  let h3 = h1;
  let h4 = h1;
  // Zero padding up to a whole block: the buffer is reused, so stale words past n are cleared first.
  const end = (n + 3) & ~3;
  for (let k = n; k < end; k++) w[k] = 0;
  for (let k = 0; k < end; k += 4) {
    const a = Math.imul(rotl(Math.imul(w[k]!, C1), 15), C2);
    h1 ^= a;
    h1 = (Math.imul(rotl(h1, 19) + h2, 5) + 0x561ccd1b) | 0;
    const b = Math.imul(rotl(Math.imul(w[k + 1]!, C2), 16), C3);
    h2 ^= b;
    h2 = (Math.imul(rotl(h2, 17) + h3, 5) + 0x0bcaa747) | 0;
    const c = Math.imul(rotl(Math.imul(w[k + 2]!, C3), 17), C4);
    h3 ^= c;
    h3 = (Math.imul(rotl(h3, 15) + h4, 5) + 0x96cd1c35) | 0;
    const d = Math.imul(rotl(Math.imul(w[k + 3]!, C4), 18), C1);
    h4 ^= d;
    h4 = (Math.imul(rotl(h4, 13) + h1, 5) + 0x32ac3b17) | 0;
  }
  h1 ^= n;
  h2 ^= n;
  h3 ^= n;
  h4 ^= n;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  writeHex(h1, 0);
  writeHex(h2, 8);
  writeHex(h3, 16);
  writeHex(h4, 24);
  return String.fromCharCode(...digits);
}

function textOrNull(s: string | null): void {
  if (s === null) word(NULL);
  else text(s);
}

function number(n: number): void {
  float[0] = n;
  word(NUMBER);
  word(floatWords[0]!);
  word(floatWords[1]!);
}

function numberOrNull(n: number | null): void {
  if (n === null) word(NULL);
  else number(n);
}

function list(items: readonly string[] | null): void {
  if (items === null) {
    word(NULL);
    return;
  }
  word(items.length);
  for (let i = 0; i < items.length; i++) text(items[i]!);
}

function specs(value: Readonly<Record<string, string>> | null): void {
  if (value === null) {
    word(NULL);
    return;
  }
  const keys = sortKeys(Object.keys(value));
  word(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    text(key);
    text(value[key]!);
  }
}

function tiers(value: readonly PricingTier[] | null): void {
  if (value === null) {
    word(NULL);
    return;
  }
  word(value.length);
  for (let i = 0; i < value.length; i++) {
    const tier = value[i]!;
    text(tier.period);
    number(tier.price);
  }
}

/** A whole number (0 ≤ n < 2^31) of the field at `position`, or nothing at all when null. */
function countOrAbsent(position: number, n: number | null): void {
  if (n === null) return;
  word(COUNT);
  word(position);
  word(n);
}

const FEED: { readonly [S in Exclude<Storage, 'count'>]: (value: never) => void } = {
  text: textOrNull,
  decimal: numberOrNull,
  specs,
  tiers,
  list,
};

/** Each field's name and how it is fed, in the table's order. */
const FIELDS = PRODUCT_FIELD_NAMES.map((name, position) => {
  const storage = PRODUCT_FIELDS[name].storage;
  const feed =
    storage === 'count'
      ? (n: number | null) => countOrAbsent(position, n)
      : (FEED[storage] as (value: unknown) => void);
  return [name, feed as (value: unknown) => void] as const;
});

/** The fingerprint of every content field of a normalized product (all but external_id). */
export function fingerprintOf(p: Omit<ProductContent, 'external_id'>): string {
  length = 0;
  for (let i = 0; i < FIELDS.length; i++) {
    const [name, feed] = FIELDS[i]!;
    feed(p[name]);
  }
  // Room for the zero padding of the last block.
  word(0);
  word(0);
  word(0);
  return hash128(words, length - 3);
}

/** Code-unit order, like Array#sort; insertion sort because specs are small and sort()'s setup dominates there. */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}
