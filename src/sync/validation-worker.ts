// A thread of the validation pool (validation-pool.ts): checks a large body off the event loop, without keeping the
// products it validates in full, and moves the body back with the verdict.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { isKnown } from '../catalog/types.js';
import { placeOf } from '../catalog/known-products.js';
import type { ValidationTask, ValidationVerdict } from './validation-pool.js';
import { validateWithReceipts } from './receipts.js';

/** The pool receives a ValidationVerdict: the body's buffer goes back to it by transfer, not by copy. */
export default function checkOnThread({ bytes, options, stored }: ValidationTask): ReturnType<typeof move> {
  return move({ [transferableSymbol]: [bytes.buffer], [valueSymbol]: verdictOf({ bytes, options, stored }) });
}

function verdictOf({ bytes, options, stored }: ValidationTask): ValidationVerdict {
  const { validation, receipts } = validateWithReceipts(bytes, { ...options, verdictOnly: true }, stored);
  if (!validation.ok) return { kind: 'refused', validation, bytes };
  // With verdictOnly only known products are kept: the answer is complete when the body was read item by item (its
  // items have digests) and every item is one of them.
  const complete =
    receipts !== null && receipts.digests.length > 0 && validation.products.length === receipts.digests.length;
  if (!complete) return { kind: 'valid', bytes };
  return { kind: 'known', products: validation.products.filter(isKnown).map(placeOf), receipts, bytes };
}
