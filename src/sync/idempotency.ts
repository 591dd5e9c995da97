// The Idempotency-Key (contract section 7, draft-ietf-httpapi-idempotency-key-header): kept per host with a
// fingerprint of the request, so that a retry of a request whose answer was lost gets that answer again instead of
// applying the sync twice. A request holds its key from before its body is read until its answer is kept (in the
// sync's own transaction, or beside a refusal) or the key is released (for any answer that is not kept).
import { createHash } from 'node:crypto';
import type { Config } from '../config.js';
import type { Queryable } from '../store/db.js';
import {
  claimIdempotencyKey,
  releaseIdempotencyKey,
  type ClaimRef,
  type IdempotencyPolicy,
  type StoredAnswer,
} from '../store/idempotency.js';

export type { StoredAnswer };

/** How long an Idempotency-Key and its answer are kept: 24 hours, as the contract promises providers. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 86_400;

/**
 * Finished Idempotency-Keys kept per host; past it, the oldest are forgotten first. The bytes of their answers have a
 * bound of the operator's (IDEMPOTENCY_MAX_BYTES_PER_HOST); this one bounds the rows, small ones included.
 */
export const IDEMPOTENCY_MAX_KEYS_PER_HOST = 1000;

/** 1–255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = '^[!-~]{1,255}$';
const WELL_FORMED = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/**
 * The key as the directory keeps it: its SHA-256, never the key as sent, so that a secret pasted into the header by
 * mistake (an API key, say) is not stored. Null when there is none, or it is malformed: such a key claims nothing,
 * and the request is refused once its headers are checked against the schema.
 */
export function keyDigest(header: unknown): string | null {
  if (typeof header !== 'string' || !WELL_FORMED.test(header)) return null;
  return createHash('sha256').update(header).digest('hex');
}

/** What a key remembers of a request: whether it was a dry run, and its decoded body bytes. */
export function requestFingerprint(dryRun: boolean, bodyDigest: string): string {
  return createHash('sha256')
    .update(`${dryRun ? 'dry-run' : 'sync'}\n${bodyDigest}`)
    .digest('hex');
}

export function idempotencyPolicy(config: Config, instance: string): IdempotencyPolicy {
  return {
    ttlSeconds: config.idempotencyKeyTtlSeconds,
    leaseSeconds: config.idempotencyLeaseSeconds,
    maxKeysPerHost: config.idempotencyMaxKeysPerHost,
    maxBytesPerHost: config.idempotencyMaxBytesPerHost,
    instance,
  };
}

/** A request's hold on its key: claimed, then either kept (its answer stored) or released. */
export class KeyHold {
  #open = true;

  constructor(
    readonly hostId: number,
    readonly claim: ClaimRef,
  ) {}

  /** Whether the key still waits for its answer, or to be released. */
  get open(): boolean {
    return this.#open;
  }

  /** The answer is stored for the key (in the transaction that committed, or beside a refusal). */
  kept(): void {
    this.#open = false;
  }

  /** Frees the key, once, unless its answer was kept. */
  async release(db: Queryable): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    await releaseIdempotencyKey(db, this.hostId, this.claim);
  }
}

/** Where a request stands with its Idempotency-Key, once it has tried to claim it. */
export type KeyState =
  /** the request has no key */
  | { kind: 'none' }
  | { kind: 'held'; hold: KeyHold }
  /** a request with this key finished: its answer is replayed if this request is the same */
  | { kind: 'finished'; fingerprint: string; answer: StoredAnswer }
  /** a request with this key is still running */
  | { kind: 'in_use' };

export async function claimKey(
  db: Queryable,
  hostId: number,
  key: string | null,
  policy: IdempotencyPolicy,
): Promise<KeyState> {
  if (key === null) return { kind: 'none' };
  const claim = await claimIdempotencyKey(db, hostId, key, policy);
  if (claim.kind === 'claimed') return { kind: 'held', hold: new KeyHold(hostId, claim.claim) };
  return claim;
}

/**
 * The earlier answer of a finished key: replayed when this request is the one that got it, never rate limited since
 * it applies nothing; a reuse of the key for another request otherwise. Null when the key has no answer yet.
 */
export function priorAnswer(
  state: KeyState,
  fingerprint: string,
): { kind: 'replayed'; answer: StoredAnswer } | { kind: 'key_reused' } | null {
  if (state.kind !== 'finished') return null;
  return state.fingerprint === fingerprint ? { kind: 'replayed', answer: state.answer } : { kind: 'key_reused' };
}

/** The hold of a request that holds its key, if it does. */
export function holdOf(state: KeyState): KeyHold | null {
  return state.kind === 'held' ? state.hold : null;
}
