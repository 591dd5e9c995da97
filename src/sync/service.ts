// The sync use case (contract sections 2, 3, 6 and 7): who may sync now, before the body is read (admit), and a sync
// from its body to its answer (run). Its rules live beside it: the window (window.ts), the Idempotency-Key
// (idempotency.ts) and receipts (receipts.ts). Framework-free: every outcome is a value, which the HTTP layer turns
// into an answer.
import { newId } from '../catalog/ids.js';
import { planSync, writesOf, type ProductWrites } from '../catalog/plan.js';
import type { CatalogueProduct, SyncPlan, SyncSummary, ValidationIssue } from '../catalog/types.js';
import { validateCatalogueBody } from '../catalog/validate.js';
import type { ValidateOptions } from '../catalog/validation-run.js';
import type { Config } from '../config.js';
import type { Database } from '../store/db.js';
import { keepRefusal, type KeptAnswerCaps } from '../store/idempotency.js';
import { findSyncCaller, type SyncCaller } from '../store/sync-caller.js';
import { inSyncTransaction } from '../store/sync.js';
import type { SyncTransaction } from '../store/sync-transaction.js';
import { findSyncRun, recordRefusal } from '../store/sync-runs.js';
import { answerOfRun, syncAnswer, type SyncAnswer } from './answer.js';
import {
  claimKey,
  holdOf,
  idempotencyPolicy,
  priorAnswer,
  requestFingerprint,
  type KeyHold,
  type KeyState,
  type StoredAnswer,
} from './idempotency.js';
import { planFromReceipts, receiptsChange, receiptsToCheck, withoutKnown, type ReceiptsUse } from './receipts.js';
import type { SyncSlots } from './slots.js';
import { checkBody } from './validation-pool.js';
import { isFull, refusedTooOften, windowFor, withOneMoreRun, type Window, type WindowUsage } from './window.js';

/** How answers are written down, for an Idempotency-Key to keep them: given by the HTTP layer, pure. */
export interface SyncAnswers {
  applied(answer: SyncAnswer): StoredAnswer;
  refused(refusal: CatalogueRefusal, request: { id: string; instance: string }): StoredAnswer;
}

/** Why a catalogue was refused: every problem found (at most MAX_ERRORS_LISTED), or a body that is not JSON. */
export interface CatalogueRefusal {
  errors: ValidationIssue[];
  truncated: boolean;
  notJson: boolean;
}

/** The request a sync runs for: its id, its path (as problems name it) and its log. */
export interface SyncRequest {
  id: string;
  instance: string;
  log: { warn(details: Record<string, unknown>, message: string): void };
}

/** A request's body as read: the SHA-256 of its decoded bytes, and the bytes, handed over once. */
export interface SyncBody {
  digest: string;
  takeBytes(): Buffer;
}

/** What is known of a request once its headers are: who sends it, its window, its key. */
export interface Admission {
  verdict: 'admitted' | 'key_in_use' | 'rate_limited';
  caller: SyncCaller;
  dryRun: boolean;
  window: Window;
  key: KeyState;
  startedAt: Date;
}

export type SyncOutcome =
  /** applied (or, for a dry run, planned); usage is the window's once it counts this run, when known */
  | {
      kind: 'applied';
      answer: StoredAnswer;
      dryRun: boolean;
      summary: SyncSummary;
      window: Window;
      usage: WindowUsage | null;
    }
  /** the same request finished before under its Idempotency-Key: its answer */
  | { kind: 'replayed'; answer: StoredAnswer }
  /** the catalogue breaks the rules; nothing was changed */
  | { kind: 'refused'; answer: StoredAnswer }
  /** the Idempotency-Key was used for another request */
  | { kind: 'key_reused' }
  /** another request took the Idempotency-Key over while this one ran; nothing was changed */
  | { kind: 'key_in_use' }
  | { kind: 'rate_limited'; window: Window; usage: WindowUsage }
  /** the key was revoked or its host suspended while the body was read */
  | { kind: 'revoked' }
  /** another sync of the host held it for longer than LOCK_TIMEOUT_MS; nothing was changed */
  | { kind: 'busy' }
  /** every sync slot of this process is taken and its queue full; nothing was changed */
  | { kind: 'overloaded' }
  /** the database could not be reached; nothing was changed */
  | { kind: 'unavailable' }
  /** the connection was lost while COMMIT was on its way, and whether it committed could not be found out */
  | { kind: 'outcome_unknown'; syncId: string };

/** A valid catalogue, as validation left it. */
interface Catalogue {
  products: CatalogueProduct[];
  receipts: ReceiptsUse | null;
  /** the body's bytes while products known from receipts vouch for them: validated in full should a receipt not hold */
  heal: (() => CatalogueProduct[] | null) | null;
}

const NO_WRITES: ProductWrites = { created: [], changed: [], deactivated: [] };

export class SyncService {
  readonly #db: Database;
  readonly #config: Config;
  readonly #slots: SyncSlots;
  readonly #answers: SyncAnswers;
  readonly #keys: ReturnType<typeof idempotencyPolicy>;

  constructor(settings: { db: Database; config: Config; instanceId: string; slots: SyncSlots; answers: SyncAnswers }) {
    this.#db = settings.db;
    this.#config = settings.config;
    this.#slots = settings.slots;
    this.#answers = settings.answers;
    this.#keys = idempotencyPolicy(settings.config, settings.instanceId);
  }

  /** The owner of the key with this digest, with the window of `dryRun`, in one query; receipts only when they may be used. */
  findCaller(digest: Buffer, dryRun: boolean, mayUseReceipts: boolean): Promise<SyncCaller | null> {
    const window = this.windowOf(dryRun);
    return findSyncCaller(this.#db, digest, window, {
      receipts: mayUseReceipts,
      refusalBudget: this.#config.refusedMaxPerWindow,
    });
  }

  /** The window a request is counted in: applied syncs, or dry runs. */
  windowOf(dryRun: boolean): Window {
    return windowFor(dryRun, this.#config);
  }

  /** A host past its budget of refused requests is turned away before anything of its request is read. */
  refusedTooOften(caller: SyncCaller): boolean {
    return refusedTooOften(this.#config, caller.refusals);
  }

  /** Before the body is read: the request's Idempotency-Key is claimed, and the window must have room. */
  async admit(
    caller: SyncCaller,
    request: { dryRun: boolean; idempotencyKey: string | null; startedAt: Date },
  ): Promise<Admission> {
    const window = this.windowOf(request.dryRun);
    const key = await claimKey(this.#db, caller.hostId, request.idempotencyKey, this.#keys);
    const admission = { caller, dryRun: request.dryRun, window, key, startedAt: request.startedAt };
    if (key.kind === 'in_use') return { verdict: 'key_in_use', ...admission };
    // A retry of a finished request is answered from the record once its body is known to be the same: never rate
    // limited, since it applies nothing.
    if (key.kind !== 'finished' && isFull(window, caller.usage)) return { verdict: 'rate_limited', ...admission };
    return { verdict: 'admitted', ...admission };
  }

  /** Frees the request's Idempotency-Key unless its answer was kept: any other answer lets the request be retried. */
  async release(admission: Admission): Promise<void> {
    await holdOf(admission.key)?.release(this.#db);
  }

  /**
   * Counts a refused request (413, 415, 422) against its host's budget of refusals. False when the budget was spent
   * by requests that were already being read when it filled: those are answered, and not counted twice.
   */
  recordRefusal(hostId: number): Promise<boolean> {
    return recordRefusal(this.#db, hostId, {
      seconds: this.#config.syncWindowSeconds,
      budget: this.#config.refusedMaxPerWindow,
    });
  }

  /**
   * The sync of an admitted request: the key's prior answer, if it has one; else the body validated (with receipts
   * where they apply), and, in one transaction in one of this process's sync slots, the host taken, the window
   * checked, the plan made, written and recorded, and the answer kept for the key.
   */
  async run(admission: Admission, body: SyncBody, request: SyncRequest): Promise<SyncOutcome> {
    const fingerprint = requestFingerprint(admission.dryRun, body.digest);
    const prior = priorAnswer(admission.key, fingerprint);
    if (prior !== null) return prior;
    const hold = holdOf(admission.key);

    const catalogue = await this.#validate(admission.caller, body);
    if ('refusal' in catalogue) return this.#refuse(hold, fingerprint, catalogue.refusal, request);

    const slot = await this.#slots.run(() => this.#apply(admission, hold, fingerprint, catalogue, request));
    return slot === null ? { kind: 'overloaded' } : slot.value;
  }

  #keptAnswerCaps(): KeptAnswerCaps {
    return { maxKeysPerHost: this.#keys.maxKeysPerHost, maxBytesPerHost: this.#keys.maxBytesPerHost };
  }

  /** Validation of a large body runs on a thread of the validation pool, so that the event loop serves others meanwhile. */
  async #validate(caller: SyncCaller, body: SyncBody): Promise<Catalogue | { refusal: CatalogueRefusal }> {
    const options: ValidateOptions = {
      categories: caller.categories,
      defaultCurrency: caller.defaultCurrency,
      maxProducts: this.#config.maxProducts,
    };
    const { validation, receipts, bytes } = await checkBody(body.takeBytes(), options, caller.receipts);
    if (!validation.ok)
      return {
        refusal: { errors: validation.errors, truncated: validation.truncated, notJson: 'notJson' in validation },
      };
    const heal = () => {
      const full = validateCatalogueBody(bytes, options);
      return full.ok ? full.products : null;
    };
    return { products: validation.products, receipts, heal: validation.known > 0 ? heal : null };
  }

  /** A refused body is an answer too: kept for the key, so that its retry is refused the same way. */
  async #refuse(
    hold: KeyHold | null,
    fingerprint: string,
    refusal: CatalogueRefusal,
    request: SyncRequest,
  ): Promise<SyncOutcome> {
    const answer = this.#answers.refused(refusal, request);
    if (hold !== null) {
      await keepRefusal(this.#db, hold.hostId, {
        claim: hold.claim,
        fingerprint,
        answer,
        caps: this.#keptAnswerCaps(),
      });
      hold.kept();
    }
    return { kind: 'refused', answer };
  }

  async #apply(
    admission: Admission,
    hold: KeyHold | null,
    fingerprint: string,
    catalogue: Catalogue,
    request: SyncRequest,
  ): Promise<SyncOutcome> {
    const { caller, dryRun, window } = admission;
    const syncId = newId('syn');
    const identity = { syncId, hostId: caller.hostId, keyId: caller.keyId, lockTimeoutMs: this.#config.lockTimeoutMs };
    const ended = await inSyncTransaction(this.#db, identity, async (tx): Promise<SyncOutcome> => {
      const host = await tx.takeHost({
        window,
        claim: hold?.claim ?? null,
        receiptsWrittenBy: receiptsToCheck(catalogue.receipts),
      });
      if (!host.active) return { kind: 'revoked' };
      if (isFull(window, host.usage)) return { kind: 'rate_limited', window, usage: host.usage };
      if (!host.holdsClaim) return { kind: 'key_in_use' };

      const planned = await this.#plan(tx, catalogue, host.receiptsCurrent, dryRun, request);
      const recorded = await tx.write(
        planned.writes,
        {
          dryRun,
          requestId: request.id,
          summary: planned.plan.summary,
          plan: planned.plan,
          startedAt: admission.startedAt,
        },
        {
          receipts: receiptsChange(planned.receipts, planned.plan, { dryRun, fromReceipts: planned.fromReceipts }),
          answerFollows: hold !== null,
        },
      );
      const answer = this.#answers.applied(
        syncAnswer({ syncId, dryRun, host: caller.hostSlug }, planned.plan, recorded),
      );
      if (hold !== null) await tx.keepAnswer({ claim: hold.claim, fingerprint, answer, caps: this.#keptAnswerCaps() });
      return {
        kind: 'applied',
        answer,
        dryRun,
        summary: planned.plan.summary,
        window,
        usage: withOneMoreRun(window, host.usage),
      };
    });

    switch (ended.kind) {
      case 'done':
        if (ended.value.kind === 'applied') hold?.kept();
        return ended.value;
      case 'committed_unseen': {
        // Applied, though the database's answer was lost: the answer is the run as recorded, kept with it.
        const run = await findSyncRun(this.#db, caller.hostId, syncId);
        if (!run) throw new Error(`sync run ${syncId} was seen committed and then not found`);
        hold?.kept();
        const answer = this.#answers.applied(answerOfRun(caller.hostSlug, run));
        return { kind: 'applied', answer, dryRun, summary: run.summary, window, usage: null };
      }
      case 'outcome_unknown':
        return { kind: 'outcome_unknown', syncId };
      case 'busy':
        return { kind: 'busy' };
      case 'unavailable':
        request.log.warn({ err: ended.error }, 'database unavailable during a sync');
        return { kind: 'unavailable' };
    }
  }

  /**
   * The plan and what it writes: from the receipts when they vouch for every product and still describe the host's
   * products (every product unchanged), else against the products the host holds.
   */
  async #plan(
    tx: SyncTransaction,
    catalogue: Catalogue,
    receiptsCurrent: boolean,
    dryRun: boolean,
    request: SyncRequest,
  ): Promise<{ plan: SyncPlan; writes: ProductWrites; receipts: ReceiptsUse | null; fromReceipts: boolean }> {
    const unchanged = planFromReceipts(catalogue.receipts, receiptsCurrent, catalogue.products);
    if (unchanged !== null)
      return { plan: unchanged, writes: NO_WRITES, receipts: catalogue.receipts, fromReceipts: true };
    const held = await tx.products();
    const newProductId = () => newId('prd');
    const plan = planSync(held, catalogue.products, newProductId);
    if (dryRun) return { plan, writes: NO_WRITES, receipts: catalogue.receipts, fromReceipts: false };
    const written = writesOf(plan);
    if ('writes' in written) return { plan, writes: written.writes, receipts: catalogue.receipts, fromReceipts: false };

    // A stored receipt vouched for bytes that do not validate to it (altered in the database, or left by a bug):
    // nothing is written yet; the catalogue is validated in full, planned again, and its receipts rewritten.
    request.log.warn(
      { product: written.staleAt },
      'a stored receipt no longer holds; the catalogue is validated in full',
    );
    const products = catalogue.heal?.() ?? null;
    if (products === null) throw new Error(`product ${written.staleAt} is valid with its receipt and not without it`);
    const replanned = planSync(held, products, newProductId);
    const rewritten = writesOf(replanned);
    if (!('writes' in rewritten)) throw new Error('a catalogue validated in full has no product known from a receipt');
    return {
      plan: replanned,
      writes: rewritten.writes,
      receipts: withoutKnown(catalogue.receipts),
      fromReceipts: false,
    };
  }
}
