// Public ids: a prefix and a ULID (48-bit millisecond time, 80 random bits, Crockford base32), so ids sort by creation.

import { randomFillSync } from 'node:crypto';

export type IdPrefix = 'prd' | 'syn' | 'key' | 'req' | 'ins' | 'per' | 'wch';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The pattern of the ids `newId(prefix)` makes; with no prefix, of any id hostdir gives out. */
export function idPattern(prefix?: IdPrefix): string {
  return `^${prefix ?? '[a-z]{3}'}_[0-9A-HJKMNP-TV-Z]{26}$`;
}
const RANDOM_DIGITS = 16;
// One byte per 5-bit digit (low 5 bits of a uniform byte are uniform); one getrandom call per 256 ids.
const pool = new Uint8Array(RANDOM_DIGITS * 256);
let poolOffset = pool.length;

let lastTime = -1;
/** the encoded lastTime, as character codes: many ids share a millisecond */
const lastTimeCodes = new Uint8Array(10);
const lastRandom = new Uint8Array(RANDOM_DIGITS);

function drawRandom(): void {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  for (let i = 0; i < RANDOM_DIGITS; i++) lastRandom[i] = pool[poolOffset + i]! & 31;
  poolOffset += RANDOM_DIGITS;
}

/** Adds one to the random part; false when it was all ones (2^80 ids in one millisecond: never in practice). */
function incrementRandom(): boolean {
  for (let i = RANDOM_DIGITS - 1; i >= 0; i--) {
    const digit = lastRandom[i]!;
    if (digit < 31) {
      lastRandom[i] = digit + 1;
      return true;
    }
    lastRandom[i] = 0;
  }
  return false;
}

function encodeTime(ms: number): void {
  for (let i = 9; i >= 0; i--) {
    lastTimeCodes[i] = CROCKFORD.charCodeAt(ms % 32);
    ms = Math.floor(ms / 32);
  }
}

/** Moves the last ULID (lastTimeCodes, lastRandom) on to the next one. */
function nextUlid(now: number): void {
  if (now > lastTime) {
    lastTime = now;
    encodeTime(now);
    drawRandom();
  } else if (!incrementRandom()) {
    lastTime++;
    encodeTime(lastTime);
    drawRandom();
  }
}

/**
 * The current ULID after `prefix`, made as character codes and turned into a string in one step: built by
 * concatenation it would be a rope of one node per character (about 500 bytes instead of 60), and a sync keeps
 * 50 000 of them until it ends.
 */
function ulidText(prefix: string): string {
  const codes: number[] = [];
  for (let i = 0; i < prefix.length; i++) codes.push(prefix.charCodeAt(i));
  for (let i = 0; i < 10; i++) codes.push(lastTimeCodes[i]!);
  for (let i = 0; i < RANDOM_DIGITS; i++) codes.push(CROCKFORD.charCodeAt(lastRandom[i]!));
  return String.fromCharCode(...codes);
}

/**
 * A new id: the prefix and a ULID strictly greater than every one this process made before. Within the same
 * millisecond, or when the clock steps back, the previous random part plus one is used instead of fresh randomness
 * (ULID monotonicity).
 */
export function newId(prefix: IdPrefix): string {
  nextUlid(Date.now());
  return ulidText(`${prefix}_`);
}
