// Large bodies are validated on a thread of their own, so that the event loop that serves every other request is not
// held while a 25 MB catalogue is parsed: a body of VALIDATION_THREAD_MIN_BYTES or more is moved (not copied) to a
// thread of this process's validation pool, validated there by validateWithReceipts (validation-worker.ts), and its
// answer moved back. The answer is the same as validation on the event loop would give, to the byte.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import type { BodyValidation, KnownPlace, ValidateOptions } from '../catalog/validate.js';
import { knownProductAt } from '../catalog/validate.js';
import type { CatalogueProduct, NormalizedProduct } from '../catalog/types.js';
import type { StoredReceipts } from '../store/sync.js';
import { validateWithReceipts, type ReceiptsUse } from './receipts.js';

/**
 * Bodies smaller than this are validated on the event loop: it holds the loop for about 10 ms at most, and handing a
 * body to a thread and its products back costs a fixed part of that.
 */
export const VALIDATION_THREAD_MIN_BYTES = 1024 * 1024;

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

/**
 * A product as it crosses back: normalized products as they are (a structured clone), products known by their bytes
 * as their place in the body, since what they parse their bytes with does not cross threads.
 */
export type ProductAcross = NormalizedProduct | { known: KnownPlace };

/** What a thread of the pool answers: the validation, its products as they cross, and the bytes, moved back. */
export interface ValidationAcross {
  validation: Exclude<BodyValidation, { ok: true }> | { ok: true; products: ProductAcross[]; known: number };
  receipts: ReceiptsUse | null;
  bytes: Uint8Array;
}

/**
 * The worker thread's module is compiled JavaScript: from dist/, the file beside this one. Under vitest this module is
 * src/sync/validation-pool.ts, and a worker thread cannot load TypeScript, so the pool runs the same module as
 * compiled to dist/ (which `npm test` builds first).
 */
const WORKER = new URL(import.meta.url.endsWith('.ts') ? '../../dist/sync/validation-worker.js' : './validation-worker.js', import.meta.url);

/** One thread, or two where there are cores to spare: validation is as fast on either, the point is to leave the event loop. */
const THREADS = Math.max(1, Math.min(2, availableParallelism() - 1));

let pool: Piscina<ValidationTask, ValidationAcross> | null = null;

function validationPool(): Piscina<ValidationTask, ValidationAcross> {
  if (pool !== null) return pool;
  pool = new Piscina({ filename: WORKER.href, minThreads: THREADS, maxThreads: THREADS, idleTimeout: Infinity });
  // A thread that fails between tasks is replaced by the pool; one that fails during a task rejects that task, which
  // its request answers with 500. Neither may end the process, as an 'error' without a listener would.
  pool.on('error', (error: Error) => process.emitWarning(error));
  return pool;
}

/**
 * The catalogue of a body, as validateWithReceipts gives it: on a thread of the pool for a body of
 * VALIDATION_THREAD_MIN_BYTES or more, whose buffer is then moved there and back (the caller's view of it is left
 * empty; use the bytes answered).
 */
export async function checkBody(bytes: Uint8Array, options: ValidateOptions, stored: StoredReceipts | null): Promise<BodyCheck> {
  if (bytes.length < VALIDATION_THREAD_MIN_BYTES) return { ...validateWithReceipts(bytes, options, stored), bytes };
  // A body this large owns its buffer (the body reader's, or Buffer's pool only serves small ones): it may be moved.
  const across = await validationPool().run({ bytes, options, stored }, { transferList: [bytes.buffer as ArrayBuffer] });
  return fromAcross(across, options);
}

/** A thread's answer as validation on the event loop would give it. */
function fromAcross(across: ValidationAcross, options: ValidateOptions): BodyCheck {
  const { validation, receipts, bytes } = across;
  if (!validation.ok) return { validation, receipts, bytes };
  const products = validation.products.map((product): CatalogueProduct => {
    if ('known' in product) return knownProductAt(bytes, product.known, options);
    // Validation gives specs no prototype (validate.ts, checkSpecs), which a structured clone does not keep.
    if (product.specs !== null) Object.setPrototypeOf(product.specs, null);
    return product;
  });
  return { validation: { ok: true, products, known: validation.known }, receipts, bytes };
}

/** How many bodies the pool has validated, in this process. */
export function validatedOnThreads(): number {
  return pool?.completed ?? 0;
}

/** Ends the pool's threads once their tasks are done; a later large body starts it again. */
export async function closeValidationPool(): Promise<void> {
  const closing = pool;
  pool = null;
  await closing?.close();
}
