// Products known by their bytes (the receipts): kept unparsed, and validated again only when their content is needed.

import { fingerprintOf } from './fingerprint.js';
import type { KnownProduct, NormalizedProduct } from './types.js';
import { validateProduct } from './validate-product.js';
import { type ValidateOptions, newRun } from './validation-run.js';

/**
 * Products a caller already knows by their bytes (the receipts, sync/receipts.ts): what item `position`, whose
 * bytes are `bytes`, once validated to under the same options, or undefined to validate it as usual.
 */
export interface KnownItems {
  find(bytes: Uint8Array, position: number): { external_id: string; fingerprint: string; id: string } | undefined;
}

/** A product known by its bytes as it crosses to another thread: what was known of it, and where its bytes are. */
export interface KnownPlace {
  external_id: string;
  fingerprint: string;
  id: string;
  start: number;
  end: number;
  index: number;
}

/** Where a product known by its bytes is in the body validation found it in. */
export function placeOf(product: KnownProduct): KnownPlace {
  if (!(product instanceof ReceivedProduct))
    throw new Error(`product ${product.external_id} was not known by validation`);
  return product.place();
}

/** The product known by its bytes at `place` of `json`, validated under `opts`, as validateCatalogueJson made it. */
export function knownProductAt(json: Uint8Array, place: KnownPlace, opts: ValidateOptions): KnownProduct {
  const { start, end, index } = place;
  return new ReceivedProduct(place, { json, start, end, index, opts });
}

/** Where a known product's bytes are, and what they are validated against when they are needed after all. */
interface ProductBytes {
  json: Uint8Array;
  start: number;
  end: number;
  index: number;
  opts: ValidateOptions;
}

/** A product known by its bytes; its content is parsed and normalized only if the sync writes it. */
export class ReceivedProduct implements KnownProduct {
  readonly external_id: string;
  readonly fingerprint: string;
  readonly id: string;
  readonly #bytes: ProductBytes;

  constructor(known: { external_id: string; fingerprint: string; id: string }, bytes: ProductBytes) {
    this.external_id = known.external_id;
    this.fingerprint = known.fingerprint;
    this.id = known.id;
    this.#bytes = bytes;
  }

  place(): KnownPlace {
    const { start, end, index } = this.#bytes;
    return { external_id: this.external_id, fingerprint: this.fingerprint, id: this.id, start, end, index };
  }

  content(): NormalizedProduct | null {
    const { json, start, end, index, opts } = this.#bytes;
    const run = newRun(opts);
    const raw = parseItem(json, start, end);
    const product = raw === NOT_JSON ? null : validateProduct(run, raw, index);
    if (product === null || run.count !== 0) return null;
    product.fingerprint = fingerprintOf(product);
    // Only bytes known wrongly (a stored receipt altered, or one of another context) differ here.
    return product.fingerprint === this.fingerprint && product.external_id === this.external_id ? product : null;
  }
}

// A byte-order mark inside the body is kept, so that JSON.parse refuses it as it does in the whole body (where only
// a leading one is dropped, and findProductExtents leaves a leading one to the whole-body path).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
export const NOT_JSON = Symbol('not JSON');

export function parseItem(json: Uint8Array, start: number, end: number): unknown {
  try {
    return JSON.parse(strictUtf8.decode(json.subarray(start, end)));
  } catch {
    return NOT_JSON;
  }
}
