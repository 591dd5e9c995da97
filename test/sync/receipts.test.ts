// Receipts (src/sync/receipts.ts): a large catalogue validated with its host's receipts answers exactly as without
// them, and the receipts stop counting whenever what decides validation changes (the rules themselves by their
// version: test/catalog/validation-version.test.ts).
import { describe, expect, it } from 'vitest';
import { planSync } from '../../src/catalog/plan.js';
import { isKnown, type CatalogueProduct } from '../../src/catalog/types.js';
import { validateCatalogueBody } from '../../src/catalog/validate.js';
import type { ValidateOptions } from '../../src/catalog/validation-run.js';
import {
  RECEIPTS_MIN_BODY_BYTES,
  receiptLines,
  receiptsChange,
  receiptsContext,
  validateWithReceipts,
} from '../../src/sync/receipts.js';
import { catalogue } from '../../bench/products.mjs';

const OPTIONS: ValidateOptions = {
  categories: new Set([
    'vps_cloud',
    'vps_managed',
    'web_shared',
    'web_wordpress',
    'dedicated',
    'dedicated_gpu',
    'storage',
    'game_minecraft',
  ]),
  defaultCurrency: 'USD',
  maxProducts: 50_000,
};

/** A catalogue's body, padded with whitespace past the size at which receipts are kept. */
function largeBody(products: readonly unknown[]): Buffer {
  const json = JSON.stringify({ products });
  return Buffer.from(json.padEnd(Math.max(json.length, RECEIPTS_MIN_BODY_BYTES), ' '));
}

/** Receipts as a sync of `products` would store them. */
function storedAfter(body: Buffer, writtenBy = 'syn_first') {
  const first = validateWithReceipts(body, OPTIONS, null);
  if (!first.validation.ok || first.receipts === null) throw new Error('the first catalogue is valid and large');
  const plan = planSync(
    new Map(),
    first.validation.products,
    (() => {
      let k = 0;
      return () => `prd_${k++}`;
    })(),
  );
  const change = receiptsChange(first.receipts, plan, { dryRun: false, fromReceipts: false });
  if (change?.kind !== 'replace') throw new Error('a first catalogue writes its receipts');
  // Cut into pieces of 64 lines, as the store reads them back (a row per piece): a lookup spans them.
  const lines = [...change.text].join('').split(/(?<=\n)/);
  const pieces = Array.from({ length: Math.ceil(lines.length / 64) }, (_, k) =>
    lines.slice(k * 64, (k + 1) * 64).join(''),
  );
  return { context: change.context, pieces, writtenBy };
}

const contentOf = (product: CatalogueProduct) => (isKnown(product) ? product.content() : product);

describe('receipts', () => {
  it('are kept only by bodies of RECEIPTS_MIN_BODY_BYTES or more', () => {
    const small = Buffer.from(JSON.stringify({ products: catalogue(3) }));
    expect(validateWithReceipts(small, OPTIONS, null).receipts).toBeNull();
    expect(validateWithReceipts(largeBody(catalogue(3)), OPTIONS, null).receipts).toMatchObject({
      writtenBy: null,
      allKnown: false,
    });
  });

  it('answer a catalogue sent again, reordered, changed, shortened or grown, as validation without them', () => {
    const products = catalogue(300);
    const stored = storedAfter(largeBody(products));
    const changed = products.map((p, k) => (k % 7 === 0 ? { ...p, name: `${p.name} (new)` } : p));
    const cases: [string, unknown[], boolean][] = [
      ['the same', products, true],
      ['reordered', [...products].reverse(), true],
      ['changed', changed, false],
      ['shortened', products.slice(5), false],
      ['grown', [...products, ...catalogue(2, 1_000)], false],
      ['with a product twice', [...products, products[4]], false],
    ];
    for (const [what, sent, allKnown] of cases) {
      const body = largeBody(sent);
      const got = validateWithReceipts(body, OPTIONS, stored);
      const expected = validateCatalogueBody(body, OPTIONS);
      expect(got.validation.ok, what).toBe(expected.ok);
      if (!got.validation.ok || !expected.ok) {
        expect(got.validation, what).toStrictEqual(expected);
        continue;
      }
      expect(got.validation.products.map(contentOf), what).toStrictEqual(expected.products);
      expect(got.receipts, what).toMatchObject({ writtenBy: 'syn_first', allKnown });
      expect(got.validation.known, what).toBeGreaterThan(0);
    }
  });

  it('stop counting under another default currency, another category registry or others written', () => {
    const products = catalogue(200);
    const body = largeBody(products);
    const stored = storedAfter(body);
    expect(validateWithReceipts(body, { ...OPTIONS, defaultCurrency: 'EUR' }, stored).receipts).toMatchObject({
      writtenBy: null,
      allKnown: false,
    });
    const more = { ...OPTIONS, categories: new Set([...OPTIONS.categories, 'backup']) };
    expect(validateWithReceipts(body, more, stored).receipts).toMatchObject({ writtenBy: null, allKnown: false });
    expect(receiptsContext('usd', ['b', 'a'])).toBe(receiptsContext('USD', ['a', 'b']));
    expect(validateWithReceipts(body, OPTIONS, stored).receipts).toMatchObject({
      writtenBy: 'syn_first',
      allKnown: true,
    });
  });

  it('are stored as a line per product in pieces, whatever the external_ids hold', () => {
    const receipts = Array.from({ length: 2_500 }, (_, k) => ({
      digest: `d${k}`,
      fingerprint: `f${k}`,
      id: `prd_${k}`,
      external_id: `ext "${k}" ü \\`,
    }));
    const pieces = [...receiptLines(receipts)];
    expect(pieces.length).toBe(3);
    const lines = pieces.join('').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => line.split('\t'))).toEqual(
      receipts.map((r) => [r.digest, r.fingerprint, r.id, r.external_id]),
    );
  });
});
