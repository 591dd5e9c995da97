// Receipts: what each product of a host's last large catalogue was validated to, keyed by a digest of the product's
// bytes as received. A billing system re-sends its catalogue mostly byte for byte; a product whose bytes have a
// receipt is known to be valid, and to normalize to the receipt's external_id and fingerprint, without parsing it.
// A catalogue that is, product for product, the one the receipts were written for is not planned against the stored
// products either, while the receipts still describe them. Every saving of a re-sent catalogue is here: npm run bench's
// unchanged and steady figures show what they save (docs/performance.md), and test/sync/receipts.test.ts that they
// answer as validation without them would.
//
// A receipt is a fact about bytes, not about what the directory holds: it stays true whatever happens to the
// products since, as long as validation would answer the same. That is what the context pins down: the host's
// default currency, the category registry, the currencies the runtime knows, and the rules themselves
// (VALIDATION_VERSION, catalog/validate.ts). (The product's id is a fact too: products are never deleted, so an
// external_id keeps its id.) Whether the host's products are still exactly what the receipts describe is a separate
// question, which the store answers (sync_receipts.current).

import { hash } from 'node:crypto';
import { planUnchanged } from '../catalog/plan.js';
import { isKnown, type CatalogueProduct, type KnownProduct, type SyncPlan } from '../catalog/types.js';
import { validateCatalogueBody, VALIDATION_VERSION, type BodyValidation } from '../catalog/validate.js';
import type { KnownItems } from '../catalog/known-products.js';
import type { ValidateOptions } from '../catalog/validation-run.js';
import type { ReceiptsChange } from '../store/sync-transaction.js';
import type { StoredReceipts } from '../store/sync-caller.js';

/**
 * Bodies smaller than this are validated whole each time, and keep no receipts: reading and writing receipts costs
 * a round trip's worth of work, which a few hundred products do not repay.
 */
export const RECEIPTS_MIN_BODY_BYTES = 64 * 1024;

/**
 * Whether a request's body may be large enough for receipts, known from its headers before it is read: a compressed
 * body, or one of unknown length, may be.
 */
export function mayUseReceipts(contentLength: number | null, encoded: boolean): boolean {
  return contentLength === null || encoded || contentLength >= RECEIPTS_MIN_BODY_BYTES;
}

const CURRENCIES = Intl.supportedValuesOf('currency').join(',');

/** The conditions under which a receipt holds: the same bytes validate to the same product under them. */
export function receiptsContext(defaultCurrency: string, categories: Iterable<string>): string {
  const slugs = [...categories].sort();
  return hash(
    'sha256',
    `${VALIDATION_VERSION}\n${CURRENCIES}\n${defaultCurrency.toUpperCase()}\n${slugs.join('\n')}`,
    'base64',
  );
}

/** The digest a product's bytes are known by: SHA-256, so that no host can make two products pass for one. */
function productDigest(bytes: Uint8Array): string {
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
 * Receipts as stored: a line per product, `<digest>\t<fingerprint>\t<id>\t<external_id>\n`, in pieces of at most
 * `perPiece` receipts, so that a large catalogue's is never one string. None of the four can hold a tab or a line
 * break (base64, hex, a ULID id, and an external_id, which refuses control characters).
 */
export function* receiptLines(receipts: Iterable<Receipt>, perPiece = 1024): Generator<string> {
  // Each piece joined once: concatenated, it would be a rope of a node per part until flattened.
  let parts: string[] = [];
  for (const r of receipts) {
    parts.push(r.digest, '\t', r.fingerprint, '\t', r.id, '\t', r.external_id, '\n');
    if (parts.length >= perPiece * 8) {
      yield parts.join('');
      parts = [];
    }
  }
  if (parts.length > 0) yield parts.join('');
}

/** Stored receipts, looked up by digest; a product is first looked for where it was in the last catalogue. */
class StoredLookup {
  readonly #digests: string[] = [];
  readonly #fingerprints: string[] = [];
  readonly #ids: string[] = [];
  readonly #externalIds: string[] = [];
  #byDigest: Map<string, number> | null = null;

  constructor(pieces: readonly string[]) {
    for (const text of pieces) {
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
  }

  get size(): number {
    return this.#digests.length;
  }

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

/** How a sync's validation used its host's receipts. */
export interface ReceiptsUse {
  /** the context the catalogue was validated under */
  context: string;
  /** each product's digest, in payload order */
  digests: string[];
  /** the sync that wrote the receipts validation used, or null if none held under this context */
  writtenBy: string | null;
  /** every product had a receipt, and every receipt a product: the catalogue is the one they were written for */
  allKnown: boolean;
}

/**
 * The catalogue of a body, validated with the host's stored receipts when it is large enough to keep them: what
 * validation answers (the same as without receipts), and how the receipts were used (null for a small body, or
 * one that is not plainly a catalogue).
 */
export function validateWithReceipts(
  bytes: Uint8Array,
  options: ValidateOptions,
  stored: StoredReceipts | null,
): { validation: BodyValidation; receipts: ReceiptsUse | null } {
  if (bytes.length < RECEIPTS_MIN_BODY_BYTES)
    return { validation: validateCatalogueBody(bytes, options), receipts: null };
  const context = receiptsContext(options.defaultCurrency, options.categories);
  const usable = stored?.context === context ? stored : null;
  const lookup = usable ? new StoredLookup(usable.pieces) : null;
  const digests: string[] = [];
  const known: KnownItems = {
    find(item, position) {
      const digest = productDigest(item);
      digests.push(digest);
      return lookup?.find(digest, position);
    },
  };
  const validation = validateCatalogueBody(bytes, options, known);
  // A body validated whole (not plainly a catalogue) was not shown item by item: it keeps no receipts.
  if (!validation.ok || digests.length !== validation.products.length) return { validation, receipts: null };
  const count = validation.products.length;
  // Known products have distinct external_ids, so distinct receipts: if every product is known and no receipt is
  // left over, the catalogue is the one the receipts were written for.
  const allKnown = lookup !== null && validation.known === count && lookup.size === count;
  return { validation, receipts: { context, digests, writtenBy: usable?.writtenBy ?? null, allKnown } };
}

/** The sync whose receipts to ask about under the host's lock: those that vouch for every product, if any. */
export function receiptsToCheck(receipts: ReceiptsUse | null): string | null {
  return receipts?.allKnown ? receipts.writtenBy : null;
}

/**
 * The plan of a catalogue known product for product from receipts that still describe the host's products: every
 * product unchanged, without reading them. Null when the receipts do not allow it.
 */
export function planFromReceipts(
  receipts: ReceiptsUse | null,
  current: boolean,
  products: readonly CatalogueProduct[],
): SyncPlan | null {
  if (!receipts?.allKnown || !current) return null;
  const known: KnownProduct[] = [];
  for (const product of products) {
    if (!isKnown(product)) return null;
    known.push(product);
  }
  return planUnchanged(known);
}

/**
 * What an applied sync does to its host's receipts, so that `current` is true only while the products are what they
 * describe: a catalogue without receipts leaves them not current; the catalogue they were written for makes them
 * current, unless they were rewritten since they were read; any other catalogue writes its own. A dry run, or a
 * catalogue answered from current receipts, leaves them as they are.
 */
export function receiptsChange(
  receipts: ReceiptsUse | null,
  plan: SyncPlan,
  sync: { dryRun: boolean; fromReceipts: boolean },
): ReceiptsChange | null {
  if (sync.dryRun || sync.fromReceipts) return null;
  if (receipts === null) return { kind: 'stale' };
  if (receipts.allKnown && receipts.writtenBy !== null) return { kind: 'confirm', writtenBy: receipts.writtenBy };
  const { digests } = receipts;
  return {
    kind: 'replace',
    context: receipts.context,
    text: receiptLines(
      (function* () {
        for (let k = 0; k < plan.products.length; k++) {
          const p = plan.products[k]!;
          yield { digest: digests[k]!, fingerprint: p.product.fingerprint, id: p.id, external_id: p.external_id };
        }
      })(),
    ),
  };
}

/** Receipts as validation uses them, for a catalogue validated again in full: every digest, none known. */
export function withoutKnown(receipts: ReceiptsUse | null): ReceiptsUse | null {
  return receipts && { ...receipts, writtenBy: null, allKnown: false };
}
