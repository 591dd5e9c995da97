// Large bodies checked on a thread of the validation pool: the same answer as validation on the event loop, to the
// byte, and the event loop free while a refused one is checked. (The pool runs dist/sync/validation-worker.js:
// `npm test` builds it first.)
import { afterAll, describe, expect, it } from 'vitest';
import { planSync } from '../../src/catalog/plan.js';
import { isKnown, type CatalogueProduct } from '../../src/catalog/types.js';
import type { ValidateOptions } from '../../src/catalog/validation-run.js';
import type { StoredReceipts } from '../../src/store/sync-caller.js';
import { receiptsChange, validateWithReceipts } from '../../src/sync/receipts.js';
import {
  checkBody,
  closeValidationPool,
  VALIDATION_THREAD_MIN_BYTES,
  checkedOnThreads,
} from '../../src/sync/validation-pool.js';
import { catalogue, type BenchProduct } from '../../bench/products.mjs';

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

/** A body of at least `size` bytes: the JSON, then spaces. */
function bodyOf(json: string, size = VALIDATION_THREAD_MIN_BYTES): Buffer {
  return Buffer.from(json.padEnd(size, ' '));
}

const large = (products: readonly unknown[]) => bodyOf(JSON.stringify({ products }));

/** Receipts as a sync of `body` would store them. */
function storedAfter(body: Buffer): StoredReceipts {
  const first = validateWithReceipts(body, OPTIONS, null);
  if (!first.validation.ok) throw new Error('the first catalogue is valid');
  let k = 0;
  const plan = planSync(new Map(), first.validation.products, () => `prd_${k++}`);
  const change = receiptsChange(first.receipts, plan, { dryRun: false, fromReceipts: false });
  if (change?.kind !== 'replace') throw new Error('a first catalogue writes its receipts');
  return { context: change.context, pieces: [...change.text], writtenBy: 'syn_first' };
}

/** A product as its sync sees it: a known one by what was known of it and what its bytes parse to. */
const seen = (product: CatalogueProduct) =>
  isKnown(product)
    ? { external_id: product.external_id, fingerprint: product.fingerprint, id: product.id, content: product.content() }
    : product;

const broken = (products: BenchProduct[], every: number): unknown[] =>
  products.map((p, k) => (k % every === 1 ? { ...p, price: -1, category: 'nope' } : p));

/** The longest the event loop went without a turn while `work` ran, in milliseconds. */
async function longestWait(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const turn = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  };
  const turns = setInterval(turn, 5);
  try {
    await work();
  } finally {
    clearInterval(turns);
    turn();
  }
  return longest;
}

afterAll(closeValidationPool);

describe('the validation pool', () => {
  const products = catalogue(2_500);
  const sent = large(products);
  const stored = storedAfter(sent);
  const changed = products.map((p, k) => (k % 10 === 0 ? { ...p, name: `${p.name} (new)` } : p));
  const json = JSON.stringify({ products });
  const cases: [string, Buffer, StoredReceipts | null][] = [
    ['a new catalogue', sent, null],
    ['a catalogue sent again', sent, stored],
    ['a catalogue partly changed', large(changed), stored],
    ['a catalogue with a product twice', large([...products, products[9]]), stored],
    ['a few errors', large(broken(products, 500)), null],
    ['more errors than are listed', large(broken(products, 7)), stored],
    ['a body that is not JSON', bodyOf(json.replace('"sku-0000100"', '"sku-0000100" "')), null],
    [
      'a body that is not UTF-8',
      Buffer.concat([Buffer.from(json.slice(0, 5_000)), Buffer.from([0xc3, 0x28]), bodyOf(json.slice(5_000))]),
      null,
    ],
    ['a body with another key than products', bodyOf(JSON.stringify({ products, more: 1 })), null],
    ['a catalogue read whole (its key escaped)', bodyOf(json.replace('"products"', '"\\u0070roducts"')), stored],
  ];

  it.each(cases)(
    'answers %s as validation on the event loop does, and hands the bytes back',
    async (_, body, receipts) => {
      const expected = validateWithReceipts(Buffer.from(body), OPTIONS, receipts);
      const before = checkedOnThreads();
      const got = await checkBody(Buffer.from(body), OPTIONS, receipts);
      expect(checkedOnThreads()).toBe(before + 1);
      if (expected.validation.ok && got.validation.ok) {
        expect(got.validation.products.map(seen)).toStrictEqual(expected.validation.products.map(seen));
        expect(got.validation.known).toBe(expected.validation.known);
      } else {
        expect(got.validation).toStrictEqual(expected.validation);
      }
      expect(got.receipts).toStrictEqual(expected.receipts);
      expect(Buffer.from(got.bytes).equals(body), 'the bytes handed back are the body').toBe(true);
    },
  );

  it('validates a small body on the event loop', async () => {
    const small = Buffer.from(JSON.stringify({ products: catalogue(20) }));
    const before = checkedOnThreads();
    const got = await checkBody(small, OPTIONS, null);
    expect(checkedOnThreads()).toBe(before);
    expect(got.validation).toStrictEqual(validateWithReceipts(small, OPTIONS, null).validation);
  });

  it('turns a failure on a thread into an error of that validation only', async () => {
    const unusable = { ...OPTIONS, categories: null } as unknown as ValidateOptions;
    await expect(checkBody(Buffer.from(sent), unusable, null)).rejects.toThrow(TypeError);
    expect((await checkBody(Buffer.from(sent), OPTIONS, null)).validation.ok).toBe(true);
  });

  it('leaves the event loop free while a large catalogue that breaks the rules is validated', async () => {
    const body = large(broken(catalogue(30_000), 2));
    const [first, second] = [Buffer.from(body), Buffer.from(body)];
    const onLoop = await longestWait(async () =>
      expect(validateWithReceipts(first, OPTIONS, null).validation.ok).toBe(false),
    );
    const onThread = await longestWait(async () =>
      expect((await checkBody(second, OPTIONS, null)).validation.ok).toBe(false),
    );
    // A ratio of two waits on the same machine, whatever its speed: validated on the loop, the wait is the whole run.
    expect(onThread).toBeLessThan(onLoop / 4);
  });
});
