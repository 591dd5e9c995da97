// A thread of the validation pool (validation-pool.ts): validates a large body off the event loop, and moves the body
// back with the answer.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { isKnown, type CatalogueProduct } from '../catalog/types.js';
import { placeOf } from '../catalog/validate.js';
import type { ProductAcross, ValidationAcross, ValidationTask } from './validation-pool.js';
import { validateWithReceipts } from './receipts.js';

/** The pool receives a ValidationAcross: the body's buffer goes back to it by transfer, not by copy. */
export default function validateOnThread({ bytes, options, stored }: ValidationTask): ReturnType<typeof move> {
  const { validation, receipts } = validateWithReceipts(bytes, options, stored);
  const answer: ValidationAcross = validation.ok
    ? { validation: { ok: true, products: validation.products.map(across), known: validation.known }, receipts, bytes }
    : { validation, receipts, bytes };
  // Moved back rather than left here: known products read it, and this thread, idle until its next task, would not
  // collect it before then.
  return move({ [transferableSymbol]: [bytes.buffer], [valueSymbol]: answer });
}

function across(product: CatalogueProduct): ProductAcross {
  return isKnown(product) ? { known: placeOf(product) } : product;
}
