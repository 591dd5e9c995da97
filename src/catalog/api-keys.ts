// Provider API keys: rk_ + 64 lowercase hex characters (256 bits from the CSPRNG), kept only as SHA-256 digests.
import { createHash, randomBytes } from 'node:crypto';

const KEY_PATTERN = /^rk_[0-9a-f]{64}$/;

export function generateApiKey(): string {
  return `rk_${randomBytes(32).toString('hex')}`;
}

export function isWellFormedApiKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** The part of a key that listings show: its first 8 characters after rk_. */
export function apiKeyPrefix(key: string): string {
  return key.slice(3, 11);
}
