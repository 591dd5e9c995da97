// Public ids: a prefix and a ULID (48-bit millisecond time, 80 random bits, Crockford base32), so ids sort by creation.

import { randomFillSync } from 'node:crypto';

export type IdPrefix = 'prd' | 'syn' | 'key' | 'req';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_DIGITS = 16;
// One byte per 5-bit digit (low 5 bits of a uniform byte are uniform); one getrandom call per 256 ids.
const pool = new Uint8Array(RANDOM_DIGITS * 256);
let poolOffset = pool.length;

let lastTime = -1;
/** the encoded lastTime: many ids share a millisecond */
let lastTimeText = '';
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

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[ms % 32]! + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/**
 * A new ULID, strictly greater than every one this process made before: within the same millisecond, or when the
 * clock steps back, the previous random part plus one is used instead of fresh randomness (ULID monotonicity).
 */
export function newUlid(now: number = Date.now()): string {
  if (now > lastTime) {
    lastTime = now;
    lastTimeText = encodeTime(now);
    drawRandom();
  } else if (!incrementRandom()) {
    lastTime++;
    lastTimeText = encodeTime(lastTime);
    drawRandom();
  }
  let out = lastTimeText;
  for (let i = 0; i < RANDOM_DIGITS; i++) out += CROCKFORD[lastRandom[i]!]!;
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${newUlid()}`;
}
