// validateCatalogueJson (the body's bytes, product by product) against what it stands for: JSON.parse of the whole
// body after strict UTF-8 decoding, then validateCatalogue. For any bytes it must give the same answer, or null
// (the caller then parses the body whole); for a body that is not JSON, null; for a plain catalogue, never null.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isKnown, type CatalogueProduct } from '../../src/catalog/types.js';
import { validateCatalogue, validateCatalogueJson, type ValidationResult } from '../../src/catalog/validate.js';
import type { KnownItems } from '../../src/catalog/known-products.js';
import type { ValidateOptions } from '../../src/catalog/validation-run.js';

const OPTS: ValidateOptions = {
  categories: new Set(['web_shared', 'vps_cloud', 'dedicated']),
  defaultCurrency: 'eur',
  maxProducts: 12,
};

const NOT_JSON = 'not JSON';

/** The body as the whole-body path reads it. */
function wholeBody(bytes: Uint8Array, opts: ValidateOptions = OPTS): ValidationResult | typeof NOT_JSON {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return NOT_JSON;
  }
  return validateCatalogue(value, opts);
}

function expectSameAnswer(bytes: Uint8Array, opts: ValidateOptions = OPTS): ValidationResult | null {
  const expected = wholeBody(bytes, opts);
  const got = validateCatalogueJson(bytes, opts);
  if (expected === NOT_JSON) expect(got).toBeNull();
  else if (got !== null) expect(got).toStrictEqual(expected);
  return got;
}

// ------------------------------------------------------------------------------------------- JSON values

/** Characters that trip up a scanner or a validator: quotes, backslashes, brackets, controls, surrogates, BOM. */
const tricky = fc.constantFrom(
  '"',
  '\\',
  '\\"',
  '"\\',
  '\\\\',
  '/',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  ' ',
  '\t',
  '\n',
  '\u0000',
  '\u001f',
  '\u007f',
  '\ud800',
  '\udc00',
  '\ufeff',
  'é',
  '—',
  '🚀',
  'ß',
  '~',
  'products',
);
const text = fc
  .array(
    fc.oneof({ weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) }, { weight: 2, arbitrary: tricky }),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(''));
const someNumber = fc.oneof(
  fc.integer({ min: -5, max: 2_000_000_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  // 1e-400 underflows to 0 on purpose: a literal too small for a double.
  // eslint-disable-next-line no-loss-of-precision
  fc.constantFrom(-0, 0.1, 1e-400, 9.99),
);

const field = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined, freq: 3 });
const anyJson = fc.jsonValue({ maxDepth: 3 });

/** Text any field accepts: no control characters, no lone surrogates, not only whitespace. */
const cleanText = fc
  .array(fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }), tricky), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(''))
  .filter(
    (s) =>
      !/[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s) &&
      s.trim() !== '',
  );
const goodPrice = fc.oneof(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.integer({ min: 0, max: 1000 }));
const orNull = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null, freq: 4 });

/** A product without an error, every optional field present, null or absent. */
const goodProduct = fc.record(
  {
    external_id: cleanText,
    name: cleanText,
    category: fc.constantFrom('vps_cloud', 'web_shared', 'dedicated'),
    price: goodPrice,
    currency: orNull(fc.constantFrom('usd', 'EUR', 'Chf', 'jpy')),
    description: orNull(fc.oneof(cleanText, fc.constant(''))),
    specs: orNull(
      fc.dictionary(
        fc.oneof(cleanText, fc.constantFrom('__proto__', 'constructor', '0', '10')),
        fc.oneof(cleanText, goodPrice, fc.boolean()),
        { maxKeys: 5 },
      ),
    ),
    pricing_tiers: orNull(
      fc.uniqueArray(
        fc.record({ period: fc.constantFrom('hourly', 'monthly', 'annually', 'one_time'), price: goodPrice }),
        {
          selector: (tier) => tier.period,
          maxLength: 3,
        },
      ),
    ),
    setup_fee: orNull(goodPrice),
    contract_duration: orNull(fc.constantFrom('P1M', '12 months', 'none', ' p2w ', '1 Year', 'P120D')),
    features: orNull(fc.array(cleanText, { maxLength: 3 })),
    datacenter_locations: orNull(fc.array(cleanText, { maxLength: 3 })),
  },
  { requiredKeys: ['external_id', 'name', 'category', 'price'] },
);

/** A product: any field possibly wrong, absent or null, unknown fields possible. */
const messyProduct = fc
  .record({
    external_id: field(fc.oneof(fc.constantFrom('a', 'b', 'c', 'a/b', '__proto__', ' a', ''), text, someNumber)),
    name: field(fc.oneof(fc.constantFrom('VPS S', '  Plan  ', '', 'x'.repeat(201)), text, someNumber)),
    category: field(fc.oneof(fc.constantFrom('vps_cloud', 'web_shared', 'dedicated', 'gpu'), text)),
    price: field(fc.oneof(someNumber, text, fc.constant(null))),
    currency: field(fc.oneof(fc.constantFrom('usd', 'EUR', 'Chf', 'xyz', 'EU'), text, someNumber, fc.constant(null))),
    description: field(fc.oneof(text, someNumber, fc.constant(null))),
    specs: field(
      fc.oneof(
        fc.dictionary(
          fc.oneof(fc.constantFrom('cpu', '__proto__', 'constructor', 'a/b~c', '', '0', '10'), text),
          fc.oneof(text, someNumber, fc.boolean(), anyJson),
          {
            maxKeys: 5,
          },
        ),
        anyJson,
      ),
    ),
    pricing_tiers: field(
      fc.oneof(
        fc.array(
          fc.oneof(
            fc.record(
              { period: fc.constantFrom('monthly', 'annually', 'weekly', 'hourly'), price: someNumber },
              { requiredKeys: [] },
            ),
            anyJson,
          ),
          { maxLength: 4 },
        ),
        anyJson,
      ),
    ),
    setup_fee: field(fc.oneof(someNumber, text, fc.constant(null))),
    contract_duration: field(fc.oneof(fc.constantFrom('P1M', '12 months', 'none', 'P0D', ' p2w '), text, someNumber)),
    features: field(fc.oneof(fc.array(fc.oneof(text, someNumber), { maxLength: 4 }), anyJson)),
    datacenter_locations: field(fc.oneof(fc.array(text, { maxLength: 3 }), anyJson)),
    colour: fc.option(anyJson, { nil: undefined, freq: 8 }),
  })
  .map((p) => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)));

/** A product with an error in every field: a few of them pass the listing cap of 100 errors. */
const hopeless = fc.constant({
  external_id: 1,
  name: 2,
  category: 3,
  price: 'x',
  currency: 4,
  description: 5,
  specs: 6,
  pricing_tiers: 7,
  setup_fee: 'y',
  contract_duration: 8,
  features: 9,
  datacenter_locations: 10,
  extra: 11,
});

const item = fc.oneof(
  { weight: 4, arbitrary: goodProduct },
  { weight: 3, arbitrary: messyProduct },
  { weight: 1, arbitrary: hopeless },
  { weight: 1, arbitrary: anyJson },
);
const items = fc.oneof(
  { weight: 3, arbitrary: fc.uniqueArray(goodProduct, { selector: (p) => p.external_id, minLength: 1, maxLength: 8 }) },
  { weight: 3, arbitrary: fc.array(item, { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.array(item, { maxLength: 15 }) },
  // Enough errors to pass the listing cap, or too many products.
  { weight: 1, arbitrary: fc.array(fc.oneof(hopeless, messyProduct), { minLength: 9, maxLength: 14 }) },
);

// ------------------------------------------------------------------------------------------- rendering

/** Deterministic choices for one rendering (mulberry32), so that a failing case replays from its seed. */
function chooser(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    chance: (p: number) => next() < p,
    pick: <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!,
  };
}
type Chooser = ReturnType<typeof chooser>;

const WHITESPACE = [' ', '\n', '\t', '\r\n', '  \n\t'];
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

function space(c: Chooser): string {
  return c.chance(0.25) ? c.pick(WHITESPACE) : '';
}

function hex4(code: number, c: Chooser): string {
  const digits = code.toString(16).padStart(4, '0');
  return '\\u' + (c.chance(0.5) ? digits : digits.toUpperCase());
}

/** A JSON string literal, escaping what must be escaped and, at random, more (\u0041, \/). */
function renderString(s: string, c: Chooser): string {
  let out = '"';
  for (let k = 0; k < s.length; k++) {
    const ch = s[k]!;
    const code = s.charCodeAt(k);
    const high = code >= 0xd800 && code <= 0xdbff;
    const paired = high && k + 1 < s.length && s.charCodeAt(k + 1) >= 0xdc00 && s.charCodeAt(k + 1) <= 0xdfff;
    if (paired && !c.chance(0.2)) {
      out += ch + s[++k]!;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      out += hex4(code, c);
    } else if (ch in SHORT_ESCAPES && c.chance(0.7)) {
      out += SHORT_ESCAPES[ch];
    } else if (code < 0x20 || ch === '"' || ch === '\\' || c.chance(0.05)) {
      out += hex4(code, c);
    } else if (ch === '/' && c.chance(0.5)) {
      out += '\\/';
    } else {
      out += ch;
    }
  }
  return out + '"';
}

function renderNumber(n: number, c: Chooser): string {
  const plain = JSON.stringify(n);
  if (Number.isInteger(n) && Math.abs(n) < 1e15 && c.chance(0.2))
    return c.pick([`${plain}.0`, `${plain}e0`, `${plain}E+0`]);
  return plain;
}

/** JSON text of a value, with whitespace between tokens, escapes, and (for objects) keys given twice at random. */
function render(value: unknown, c: Chooser): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return renderNumber(value, c);
  if (typeof value === 'string') return renderString(value, c);
  if (Array.isArray(value))
    return '[' + space(c) + value.map((v) => render(v, c)).join(space(c) + ',' + space(c)) + space(c) + ']';
  const members: string[] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    // A key given twice: JSON.parse keeps the last value (at the first one's place).
    if (c.chance(0.05))
      members.push(renderString(key, c) + space(c) + ':' + space(c) + render(c.pick([1, 'dup', null, [], {}]), c));
    members.push(renderString(key, c) + space(c) + ':' + space(c) + render(v, c));
  }
  return '{' + space(c) + members.join(space(c) + ',' + space(c)) + space(c) + '}';
}

/** The body's top level: the plain shape, or one of the shapes the whole-body path must answer. */
const topLevel = fc.constantFrom(
  'plain',
  'plain',
  'plain',
  'plain',
  'plain',
  'extra-before',
  'extra-after',
  'escaped-key',
  'twice',
  'not-array',
  'not-object',
  'empty',
);

function renderBody(shape: string, list: unknown[], c: Chooser): string {
  const products = render(list, c);
  // "products" spelled plainly: an escaped spelling is a shape of its own.
  const key = (k: string) => (k === 'products' ? '"products"' : renderString(k, c)) + space(c) + ':' + space(c);
  const object = (...members: string[]) =>
    space(c) + '{' + space(c) + members.join(space(c) + ',' + space(c)) + space(c) + '}' + space(c);
  switch (shape) {
    case 'extra-before':
      return object(key('product') + '[]', key('products') + products);
    case 'extra-after':
      return object(key('products') + products, key('x/y') + render(c.pick([1, null, 'p', {}]), c));
    case 'escaped-key':
      return object('"product\\u0073"' + space(c) + ':' + space(c) + products);
    case 'twice':
      return object(key('products') + render(c.pick([[], [1], null]), c), key('products') + products);
    case 'not-array':
      return object(key('products') + render(c.pick([null, {}, 'products', 5, { 0: list[0] ?? null }]), c));
    case 'not-object':
      return space(c) + c.pick([products, '"products"', 'null', '7']) + space(c);
    case 'empty':
      return object();
    default:
      return object(key('products') + products);
  }
}

/** Ways to break a body: cut it, slip in bytes (anywhere, or into a string), add trailing garbage, a byte-order mark. */
const damage = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom('cut', 'insert', 'replace', 'after-quote', 'append', 'bom-first', 'bom-inside'),
      // Anywhere in the body: unbiased, or nearly every damage would land on its first bytes.
      at: fc.noBias(fc.double({ min: 0, max: 1, noNaN: true })),
      bytes: fc.constantFrom(
        [0x7d],
        [0x5d],
        [0x5b],
        [0x7b],
        [0x2c],
        [0x22],
        [0x5c],
        [0x20],
        [0x78],
        [0x00],
        [0x0a],
        [0xff],
        [0xc3],
        [0xe2, 0x80],
        [0xed, 0xa0, 0x80],
        [0xef, 0xbb, 0xbf],
        [0x5c, 0x22],
        [0x2c, 0x5d],
      ),
    }),
  },
);

function damaged(body: Uint8Array, d: { kind: string; at: number; bytes: readonly number[] } | null): Uint8Array {
  if (d === null) return body;
  let at = Math.min(body.length, Math.floor(d.at * (body.length + 1)));
  if (d.kind === 'after-quote') {
    const quotes = [...body.keys()].filter((k) => body[k] === 0x22);
    at = quotes.length === 0 ? at : quotes[Math.floor(d.at * quotes.length) % quotes.length]! + 1;
  }
  const bytes = Uint8Array.from(d.bytes);
  const join = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
  switch (d.kind) {
    case 'cut':
      return body.subarray(0, at);
    case 'insert':
    case 'after-quote':
      return join(body.subarray(0, at), bytes, body.subarray(at));
    case 'replace':
      return join(body.subarray(0, at), bytes, body.subarray(at + bytes.length));
    case 'append':
      return join(body, bytes);
    case 'bom-first':
      return join(Uint8Array.from([0xef, 0xbb, 0xbf]), body);
    default:
      return join(body.subarray(0, at), Uint8Array.from([0xef, 0xbb, 0xbf]), body.subarray(at));
  }
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const RUNS = { seed: 20_261_122, numRuns: 1500 };

describe('validateCatalogueJson answers as JSON.parse + validateCatalogue of the whole body', () => {
  it('for any body, valid or not: the same result, or null (and null whenever the body is not JSON)', () => {
    fc.assert(
      fc.property(topLevel, items, fc.integer(), damage, (shape, list, seed, d) => {
        expectSameAnswer(damaged(utf8(renderBody(shape, list, chooser(seed))), d));
      }),
      RUNS,
    );
  });

  it('never falls back for a plain {"products": [...]} catalogue, whatever its whitespace, escapes or items', () => {
    fc.assert(
      fc.property(items, fc.integer(), (list, seed) => {
        expect(expectSameAnswer(utf8(renderBody('plain', list, chooser(seed))))).not.toBeNull();
      }),
      RUNS,
    );
  });

  it('for random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        expectSameAnswer(bytes);
      }),
      RUNS,
    );
  });
});

describe('validateCatalogueJson on chosen bodies', () => {
  const valid = (id: string) => ({ external_id: id, name: 'VPS', category: 'vps_cloud', price: 1 });

  it.each([
    [
      'escaped quotes and backslashes around brackets',
      String.raw`{"products":[{"external_id":"a\"}]\\","name":"x\\\"{[","category":"vps_cloud","price":1}]}`,
    ],
    [
      '\\u escapes, surrogate pairs and a lone surrogate',
      String.raw`{"products":[{"external_id":"\u0061\uD83D\uDE80","name":"\ud800","category":"vps_cloud","price":1}]}`,
    ],
    [
      'whitespace of every kind between every token',
      ' \t\n{\r\n "products" \t:\n[ \n{ "external_id" : "a" , "name":"n","category":"vps_cloud","price":1 } \r\n, 7 ,"s", null ,[ ] ]\n}\n ',
    ],
    [
      'nested specs and lists',
      '{"products":[{"external_id":"a","name":"n","category":"vps_cloud","price":1,"specs":{"a":{"b":[1,{"c":"]"}]}},"features":[["x"]]}]}',
    ],
    ['products that are not objects', '{"products":[1,-0.5e3,"x",true,false,null,[],[[[]]]]}'],
    [
      'a duplicate key inside a product',
      '{"products":[{"external_id":"a","name":"n","name":"m","category":"vps_cloud","price":1}]}',
    ],
    ['an empty products array', '{"products":[ ]}'],
    ['more products than allowed', JSON.stringify({ products: Array.from({ length: 13 }, (_, k) => valid(`p${k}`)) })],
    ['duplicate external_ids', JSON.stringify({ products: [valid('a'), valid('b'), valid('a')] })],
    [
      'non-ASCII text',
      JSON.stringify({ products: [{ ...valid('é'), name: 'Serveur — 🚀 ß', description: 'ü'.repeat(50) }] }),
    ],
  ])('answers %s without falling back', (_, body) => {
    expect(expectSameAnswer(utf8(body))).not.toBeNull();
  });

  it('lists 100 errors and says there were more, yet still refuses a later product that is not JSON', () => {
    const hopelessProduct = {
      external_id: 1,
      name: 2,
      category: 3,
      price: 'x',
      currency: 4,
      description: 5,
      specs: 6,
      pricing_tiers: 7,
      setup_fee: 'y',
      contract_duration: 8,
      features: 9,
      datacenter_locations: 10,
    };
    const list = Array.from({ length: 12 }, () => hopelessProduct);
    const body = JSON.stringify({ products: list });
    const result = expectSameAnswer(utf8(body));
    expect(result).toMatchObject({ ok: false, truncated: true });
    expect(validateCatalogueJson(utf8(body.replace(/\}\]\}$/, ',}]}')), OPTS)).toBeNull();
  });

  it.each([
    ['a product that is not JSON', '{"products":[{"external_id":"a",}]}'],
    ['a bare word that is not JSON', '{"products":[tru]}'],
    ['two values without a comma', '{"products":[1 2]}'],
    ['a trailing comma', '{"products":[1,]}'],
    ['an unterminated string', '{"products":["abc]}'],
    ['mismatched brackets', '{"products":[{"a":[}]]}'],
    ['trailing garbage', '{"products":[1]}x'],
    ['a second top-level value', '{"products":[1]} {}'],
    ['a byte-order mark inside a product', '{"products":[\ufeff1]}'],
    [
      'invalid UTF-8 inside a string',
      Buffer.concat([Buffer.from('{"products":["a'), Buffer.from([0xc3]), Buffer.from('"]}')]),
    ],
    [
      'an overlong encoding',
      Buffer.concat([Buffer.from('{"products":["'), Buffer.from([0xc0, 0xaf]), Buffer.from('"]}')]),
    ],
    [
      'an encoded surrogate',
      Buffer.concat([Buffer.from('{"products":["'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"]}')]),
    ],
  ])('falls back on %s', (_, body) => {
    const bytes = typeof body === 'string' ? utf8(body) : body;
    expect(wholeBody(bytes)).toBe(NOT_JSON);
    expect(validateCatalogueJson(bytes, OPTS)).toBeNull();
  });

  it.each([
    ['an unknown top-level field', JSON.stringify({ products: [valid('a')], extra: 1 })],
    ['products given twice', '{"products":[],"products":[1]}'],
    ['an escaped products key', '{"product\\u0073":[1]}'],
    ['products that is not an array', '{"products":{"0":1}}'],
    ['a body that is not an object', '[{"products":[]}]'],
    ['a leading byte-order mark', '\ufeff{"products":[1]}'],
  ])('leaves %s to the whole-body path, which answers it', (_, body) => {
    expect(validateCatalogueJson(utf8(body), OPTS)).toBeNull();
    expect(wholeBody(utf8(body))).not.toBe(NOT_JSON);
  });
});

describe('validateCatalogueJson with known items answers as without them', () => {
  /** Products rendered once each, so that the same product is the same bytes wherever it is sent again. */
  const pool = fc.tuple(fc.array(item, { minLength: 1, maxLength: 10 }), fc.integer()).map(([list, seed]) => {
    const c = chooser(seed);
    return list.map((value) => render(value, c));
  });
  const bodyOf = (rendered: readonly string[]) => utf8('{"products":[' + rendered.join(',') + ']}');
  const decoder = new TextDecoder();
  const contentOf = (product: CatalogueProduct) => (isKnown(product) ? product.content() : product);

  /** What a first catalogue validated to, known by each product's bytes, as receipts know it. */
  function knownFrom(rendered: readonly string[]): { known: KnownItems; seen: string[] } | null {
    const first = validateCatalogueJson(bodyOf(rendered), OPTS);
    if (first === null || !first.ok) return null;
    const byBytes = new Map(
      rendered.map((bytes, k) => [
        bytes,
        { external_id: first.products[k]!.external_id, fingerprint: first.products[k]!.fingerprint, id: `prd_${k}` },
      ]),
    );
    const seen: string[] = [];
    const known: KnownItems = {
      find(bytes) {
        const text = decoder.decode(bytes);
        seen.push(text);
        return byBytes.get(text);
      },
    };
    return { known, seen };
  }

  it('for a catalogue made of products sent before (in any order, repeated, changed) and new ones', () => {
    fc.assert(
      fc.property(
        pool,
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
        (rendered, before, now) => {
          const earlier = knownFrom(before.map((k) => rendered[k % rendered.length]!));
          if (earlier === null) return;
          const sent = now.map((k) => rendered[k % rendered.length]!);
          const body = bodyOf(sent);
          const expected = validateCatalogueJson(body, OPTS);
          const got = validateCatalogueJson(body, OPTS, earlier.known);
          expect(got === null).toBe(expected === null);
          if (got === null || expected === null) return;
          if (!expected.ok) {
            expect(got).toStrictEqual(expected);
            return;
          }
          expect(got.ok).toBe(true);
          if (!got.ok) return;
          expect(got.products.map(contentOf)).toStrictEqual(expected.products);
          // Every item was shown, in order; the known ones carry what was known of them, and are counted.
          expect(earlier.seen).toStrictEqual(sent);
          expect(got.known).toBe(got.products.filter(isKnown).length);
          for (const product of got.products) if (isKnown(product)) expect(product.id).toMatch(/^prd_\d+$/);
        },
      ),
      RUNS,
    );
  });

  it('reports a product sent twice byte for byte as a duplicate, as without known items', () => {
    const product = '{"external_id":"a","name":"VPS","category":"vps_cloud","price":1}';
    const other = '{"external_id":"b","name":"VPS","category":"vps_cloud","price":2}';
    const earlier = knownFrom([product, other]);
    if (earlier === null) throw new Error('the first catalogue is valid');
    const body = bodyOf([other, product, product]);
    const got = validateCatalogueJson(body, OPTS, earlier.known);
    expect(got).toStrictEqual(validateCatalogueJson(body, OPTS));
    expect(got).toMatchObject({
      ok: false,
      errors: [
        { pointer: '/products/2/external_id', code: 'duplicate', detail: 'duplicate of /products/1/external_id' },
      ],
    });
  });

  it('gives no content for a product whose bytes do not validate to what was known of them', () => {
    const product = '{"external_id":"a","name":"VPS","category":"vps_cloud","price":1}';
    const wrong: KnownItems = { find: () => ({ external_id: 'a', fingerprint: '0'.repeat(32), id: 'prd_0' }) };
    const got = validateCatalogueJson(bodyOf([product]), OPTS, wrong);
    if (got === null || !got.ok) throw new Error('a known product is valid');
    const [known] = got.products;
    expect(isKnown(known!) && known.content()).toBeNull();
  });
});
