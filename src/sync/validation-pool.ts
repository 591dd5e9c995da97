// Large bodies are checked on a thread of their own, so that a catalogue that breaks the rules never holds the event
// loop that serves every other request: a body of VALIDATION_THREAD_MIN_BYTES or more is moved (not copied) to a
// thread of this process's validation pool and checked there (validation-worker.ts), then moved back with the verdict.
// A refusal crosses whole, and so does a catalogue whose every product is known from its receipts (a few fields and a
// place in the body each). Any other valid catalogue is validated again on the event loop: its products, built on the
// thread, would cost more to cross than they save (a structured clone of 50 000 products took about 40% of their
// validation on the event loop, and the process's peak memory during the sync rose by 160 MB, with both copies and
// the thread's heap). Every answer is the one validation on the event loop gives, to the byte.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { knownProductAt, type KnownPlace } from '../catalog/known-products.js';
import type { BodyValidation } from '../catalog/validate.js';
import type { ValidateOptions } from '../catalog/validation-run.js';
import type { StoredReceipts } from '../store/sync-caller.js';
import { validateWithReceipts, type ReceiptsUse } from './receipts.js';

/**
 * Bodies smaller than this are validated on the event loop only. Validation takes about 18 ms a MiB there (a body of
 * 10 000 products, 5 MiB, about 90 ms), so that a smaller one holds it about as long as a read may wait at most; and
 * starting a thread takes about half of that, besides the check itself, which a valid body pays on top.
 */
export const VALIDATION_THREAD_MIN_BYTES = 6 * 1024 * 1024;

/** A body's validation, as validateWithReceipts gives it, and the body's bytes, which known products are read from. */
export interface BodyCheck {
  validation: BodyValidation;
  receipts: ReceiptsUse | null;
  bytes: Uint8Array;
}

/** What a thread of the pool is given: the body (its buffer moved to the thread), and what validation needs. */
export interface ValidationTask {
  bytes: Uint8Array;
  options: ValidateOptions;
  stored: StoredReceipts | null;
}

/** What a thread of the pool answers, with the body's bytes moved back. */
export type ValidationVerdict = { bytes: Uint8Array } & (
  | { kind: 'refused'; validation: Exclude<BodyValidation, { ok: true }> }
  /** every product known from the receipts, each as its place in the body */
  | { kind: 'known'; products: KnownPlace[]; receipts: ReceiptsUse }
  /** valid, with products to be validated in full */
  | { kind: 'valid' }
);

/**
 * The worker thread's module is compiled JavaScript: from dist/, the file beside this one. Under vitest this module is
 * src/sync/validation-pool.ts, and a worker thread cannot load TypeScript, so the pool runs the same module as
 * compiled to dist/ (which `npm test` builds first).
 */
const WORKER = new URL(
  import.meta.url.endsWith('.ts') ? '../../dist/sync/validation-worker.js' : './validation-worker.js',
  import.meta.url,
);

/** One thread, or two where there are cores to spare: a check is as fast on either, the point is to leave the event loop. */
const THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));

/**
 * The thread's young generation, in MB. A check's garbage dies young, and V8 grew the young generation of a thread
 * that checked a 50 000-product catalogue to 32 MB: at 4 MB its heap grew 7 MB rather than 33, and the check took no
 * longer.
 */
const THREAD_YOUNG_GENERATION_MB = 4;

let pool: Piscina<ValidationTask, ValidationVerdict> | null = null;

/**
 * The pool, made with the first large body. A thread lives while there are bodies to check, and ends when there are
 * none: it holds about 20 MB (its own V8 heap, the modules validation loads), which a 50 000-product sync, validated on
 * the event loop once checked, would otherwise carry to its peak.
 */
function validationPool(): Piscina<ValidationTask, ValidationVerdict> {
  if (pool !== null) return pool;
  pool = new Piscina({
    filename: WORKER.href,
    minThreads: 0,
    maxThreads: THREADS,
    idleTimeout: 0,
    resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
  });
  // A thread that fails during a task rejects that task, which its request answers with 500; one that fails between
  // tasks is dropped. Neither may end the process, as an 'error' without a listener would.
  pool.on('error', (error: Error) => process.emitWarning(error));
  return pool;
}

/**
 * The catalogue of a body, as validateWithReceipts gives it; a body of VALIDATION_THREAD_MIN_BYTES or more is checked
 * on a thread of the pool first, its buffer moved there and back (the caller's view of it is left empty: use the
 * bytes answered).
 */
export async function checkBody(
  bytes: Uint8Array,
  options: ValidateOptions,
  stored: StoredReceipts | null,
): Promise<BodyCheck> {
  if (bytes.length < VALIDATION_THREAD_MIN_BYTES) return { ...validateWithReceipts(bytes, options, stored), bytes };
  // A body this large owns its buffer (the body reader's, or Buffer's pool only serves small ones): it may be moved.
  const verdict = await validationPool().run(
    { bytes, options, stored },
    { transferList: [bytes.buffer as ArrayBuffer] },
  );
  switch (verdict.kind) {
    case 'refused':
      return { validation: verdict.validation, receipts: null, bytes: verdict.bytes };
    case 'known': {
      const products = verdict.products.map((place) => knownProductAt(verdict.bytes, place, options));
      return {
        validation: { ok: true, products, known: products.length },
        receipts: verdict.receipts,
        bytes: verdict.bytes,
      };
    }
    case 'valid':
      return { ...validateWithReceipts(verdict.bytes, options, stored), bytes: verdict.bytes };
  }
}

/** How many bodies the pool has checked, in this process. */
export function checkedOnThreads(): number {
  return pool?.completed ?? 0;
}

/** Ends the pool's threads once their tasks are done; a later large body starts it again. */
export async function closeValidationPool(): Promise<void> {
  const closing = pool;
  pool = null;
  await closing?.close();
}
