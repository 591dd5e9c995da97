// Receipts: what each product of a host's last large catalogue was validated to, keyed by a digest of the product's
// bytes as received. A billing system re-sends its catalogue mostly byte for byte; a product whose bytes have a
// receipt is known to be valid, and to normalize to the receipt's external_id and fingerprint, without parsing it.
//
// A receipt is a fact about bytes, not about what the directory holds: it stays true whatever happens to the
// products since, as long as validation would answer the same. That is what the context pins down: the host's
// default currency, the category registry and the rules themselves (RULES below). (The product's id is a fact too:
// products are never deleted, so an external_id keeps its id.) Whether the host's products are still exactly what
// the receipts describe is a separate question, which the store answers (sync_receipts.current).

import { createHash, hash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The modules of this directory whose code decides what a product's bytes validate and normalize to. */
const RULE_MODULES = ['validate', 'fingerprint', 'limits', 'currency', 'product-schema', 'product-extents', 'types', 'receipts', 'billing-periods'];

/**
 * The rules, as a digest of their code and of the currencies the runtime knows (Intl's list, which comes with
 * Node.js): any change to either, however small, makes every stored receipt stop counting, and the next sync of each
 * host validates its catalogue whole once. Nothing to remember to bump.
 */
const RULES = ((): string => {
  const here = new URL(import.meta.url);
  const extension = here.pathname.slice(here.pathname.lastIndexOf('.'));
  const digest = createHash('sha256');
  for (const name of RULE_MODULES) digest.update(readFileSync(new URL(`./${name}${extension}`, here)));
  return digest.update(Intl.supportedValuesOf('currency').join(',')).digest('base64');
})();

/**
 * Bodies smaller than this are validated whole each time, and keep no receipts: reading and writing receipts costs
 * a round trip's worth of work, which a few hundred products do not repay.
 */
export const RECEIPTS_MIN_BODY_BYTES = 64 * 1024;

/** The conditions under which a receipt holds: the same bytes validate to the same product under them. */
export function receiptsContext(defaultCurrency: string, categories: Iterable<string>): string {
  const slugs = [...categories].sort();
  return hash('sha256', `${RULES}\n${defaultCurrency.toUpperCase()}\n${slugs.join('\n')}`, 'base64');
}

/** The digest a product's bytes are known by: SHA-256, so that no host can make two products pass for one. */
export function productDigest(bytes: Uint8Array): string {
  return hash('sha256', bytes, 'base64');
}

export interface Receipt {
  digest: string;
  external_id: string;
  fingerprint: string;
  /** the id the directory gave the product */
  id: string;
}

/**
 * A host's receipts, as stored: a line per product, `<digest>\t<fingerprint>\t<id>\t<external_id>`. None of the
 * four can hold a tab or a line break (base64, hex, a ULID id, and an external_id, which refuses control characters).
 */
export function receiptsText(receipts: Iterable<Receipt>): string {
  return [...receiptsChunks(receipts)].join('');
}

/** receiptsText in pieces of at most `perChunk` receipts, so that a large catalogue's is never one string. */
export function* receiptsChunks(receipts: Iterable<Receipt>, perChunk = 1024): Generator<string> {
  // Each piece joined once: concatenated, it would be a rope of a node per part until flattened.
  let parts: string[] = [];
  for (const r of receipts) {
    parts.push(r.digest, '\t', r.fingerprint, '\t', r.id, '\t', r.external_id, '\n');
    if (parts.length >= perChunk * 8) {
      yield parts.join('');
      parts = [];
    }
  }
  if (parts.length > 0) yield parts.join('');
}

/** Stored receipts, looked up by digest; a product is first looked for where it was in the last catalogue. */
export class Receipts {
  readonly #digests: string[] = [];
  readonly #fingerprints: string[] = [];
  readonly #ids: string[] = [];
  readonly #externalIds: string[] = [];
  #byDigest: Map<string, number> | null = null;

  constructor(text: string) {
    let at = 0;
    while (at < text.length) {
      const tab1 = text.indexOf('\t', at);
      const tab2 = text.indexOf('\t', tab1 + 1);
      const tab3 = text.indexOf('\t', tab2 + 1);
      const end = text.indexOf('\n', tab3 + 1);
      if (tab1 < 0 || tab2 < 0 || tab3 < 0 || end < 0) break;
      this.#digests.push(text.slice(at, tab1));
      this.#fingerprints.push(text.slice(tab1 + 1, tab2));
      this.#ids.push(text.slice(tab2 + 1, tab3));
      this.#externalIds.push(text.slice(tab3 + 1, end));
      at = end + 1;
    }
  }

  get size(): number {
    return this.#digests.length;
  }

  /** The receipt for `digest`, or undefined; `position` is where the product is in the catalogue being read. */
  find(digest: string, position: number): Receipt | undefined {
    let k = this.#digests[position] === digest ? position : -1;
    if (k < 0) {
      if (this.#byDigest === null) {
        this.#byDigest = new Map();
        for (let j = 0; j < this.#digests.length; j++) this.#byDigest.set(this.#digests[j]!, j);
      }
      k = this.#byDigest.get(digest) ?? -1;
      if (k < 0) return undefined;
    }
    return { digest, external_id: this.#externalIds[k]!, fingerprint: this.#fingerprints[k]!, id: this.#ids[k]! };
  }
}
