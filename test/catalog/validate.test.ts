import { describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../src/catalog/fingerprint.js';
import { validateCatalogue } from '../../src/catalog/validate.js';
import type { ValidateOptions } from '../../src/catalog/validation-run.js';
import type { NormalizedProduct, ValidationIssue } from '../../src/catalog/types.js';

const OPTS: ValidateOptions = {
  categories: new Set(['web_shared', 'vps_cloud', 'dedicated']),
  defaultCurrency: 'EUR',
  maxProducts: 5,
};

const base = (): Record<string, unknown> => ({
  external_id: 'vps-s',
  name: 'VPS S',
  category: 'vps_cloud',
  price: 9.99,
});

/** One product: base() with fields replaced; a field set to undefined is left out of the request. */
function productWith(patch: Record<string, unknown>): Record<string, unknown> {
  const p = { ...base(), ...patch };
  for (const key of Object.keys(p)) if (p[key] === undefined) delete p[key];
  return p;
}

function accept(body: unknown, opts: ValidateOptions = OPTS): NormalizedProduct[] {
  const result = validateCatalogue(body, opts);
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.errors)}`);
  return result.products;
}

function acceptOne(patch: Record<string, unknown>): NormalizedProduct {
  return accept({ products: [productWith(patch)] })[0]!;
}

function refuse(body: unknown, opts: ValidateOptions = OPTS): { errors: ValidationIssue[]; truncated: boolean } {
  const result = validateCatalogue(body, opts);
  if (result.ok) throw new Error('accepted');
  return result;
}

const x = (n: number) => 'x'.repeat(n);
const emoji = (n: number) => '🚀'.repeat(n); // U+1F680: two UTF-16 units, one character
const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, k) => [`k${k}`, k]));

describe('validateCatalogue refuses, with pointer and code', () => {
  const p = '/products/0';
  // [case, product patch, pointer, code]
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['unknown product field', { colour: 'red' }, `${p}/colour`, 'unknown_field'],
    ['unknown field with / and ~ in its name', { 'a/b~c': 1 }, `${p}/a~1b~0c`, 'unknown_field'],
    ['unknown field __proto__', JSON.parse('{"__proto__": 1}'), `${p}/__proto__`, 'unknown_field'],

    ['name missing', { name: undefined }, `${p}/name`, 'required'],
    ['name null', { name: null }, `${p}/name`, 'required'],
    ['name not a string', { name: 5 }, `${p}/name`, 'type'],
    ['name empty', { name: '' }, `${p}/name`, 'min_length'],
    ['name only whitespace', { name: ' \t\n ' }, `${p}/name`, 'min_length'],
    ['name of 201 characters', { name: x(201) }, `${p}/name`, 'max_length'],
    ['name of 201 four-byte characters', { name: emoji(201) }, `${p}/name`, 'max_length'],

    ['external_id missing', { external_id: undefined }, `${p}/external_id`, 'required'],
    ['external_id not a string', { external_id: 42 }, `${p}/external_id`, 'type'],
    ['external_id empty', { external_id: '' }, `${p}/external_id`, 'min_length'],
    ['external_id of 256 characters', { external_id: x(256) }, `${p}/external_id`, 'max_length'],
    ['external_id with U+0000', { external_id: 'a\u0000b' }, `${p}/external_id`, 'control_characters'],
    ['external_id with a newline', { external_id: 'a\nb' }, `${p}/external_id`, 'control_characters'],
    ['external_id with U+007F', { external_id: 'a\u007f' }, `${p}/external_id`, 'control_characters'],
    ['external_id with U+009F', { external_id: '\u009fa' }, `${p}/external_id`, 'control_characters'],
    ['external_id with a lone high surrogate', { external_id: 'a\ud800' }, `${p}/external_id`, 'invalid_unicode'],

    // PostgreSQL text cannot hold U+0000 and its JSON functions refuse unpaired surrogates: every stored string.
    ['name with U+0000', { name: 'VPS\u0000S' }, `${p}/name`, 'control_characters'],
    ['name with a lone high surrogate', { name: 'VPS \ud800' }, `${p}/name`, 'invalid_unicode'],
    ['name with a lone low surrogate', { name: '\udc00 VPS' }, `${p}/name`, 'invalid_unicode'],
    ['name with reversed surrogates', { name: '\ude00\ud83d' }, `${p}/name`, 'invalid_unicode'],
    ['description with U+0000', { description: 'a\u0000' }, `${p}/description`, 'control_characters'],
    ['description with a lone surrogate', { description: '\udfff' }, `${p}/description`, 'invalid_unicode'],
    ['spec key with U+0000', { specs: { 'c\u0000pu': 'x' } }, `${p}/specs/c\u0000pu`, 'control_characters'],
    ['spec key with a lone surrogate', { specs: { '\ud800': 'x' } }, `${p}/specs/\ud800`, 'invalid_unicode'],
    ['spec value with U+0000', { specs: { os: '\u0000' } }, `${p}/specs/os`, 'control_characters'],
    ['spec value with a lone surrogate', { specs: { os: 'linux\udbff' } }, `${p}/specs/os`, 'invalid_unicode'],
    ['feature with U+0000', { features: ['ok', 'N\u0000Me'] }, `${p}/features/1`, 'control_characters'],
    ['feature with a lone surrogate', { features: ['\ud83d'] }, `${p}/features/0`, 'invalid_unicode'],
    ['location with U+0000', { datacenter_locations: ['\u0000'] }, `${p}/datacenter_locations/0`, 'control_characters'],
    [
      'location with a lone surrogate',
      { datacenter_locations: ['Frankfurt\udc00'] },
      `${p}/datacenter_locations/0`,
      'invalid_unicode',
    ],

    ['category missing', { category: undefined }, `${p}/category`, 'required'],
    ['category not a string', { category: ['vps_cloud'] }, `${p}/category`, 'type'],
    ['category unknown', { category: 'vps' }, `${p}/category`, 'enum'],
    ['category in another case', { category: 'VPS_CLOUD' }, `${p}/category`, 'enum'],

    ['price a string', { price: '9.99' }, `${p}/price`, 'type'],
    ['price negative', { price: -0.01 }, `${p}/price`, 'minimum'],
    ['price over 1e9', { price: 1_000_000_000.01 }, `${p}/price`, 'maximum'],
    ['price NaN', { price: Number.NaN }, `${p}/price`, 'not_finite'],
    ['price Infinity', { price: Number.POSITIVE_INFINITY }, `${p}/price`, 'not_finite'],

    ['currency unknown', { currency: 'ZZZ' }, `${p}/currency`, 'currency'],
    ['currency of 2 letters', { currency: 'US' }, `${p}/currency`, 'currency'],
    ['currency of 4 letters', { currency: 'USDX' }, `${p}/currency`, 'currency'],
    ['currency a number', { currency: 840 }, `${p}/currency`, 'type'],

    ['description of 20 001 characters', { description: x(20_001) }, `${p}/description`, 'max_length'],
    ['description not a string', { description: { text: 'a' } }, `${p}/description`, 'type'],

    ['specs an array', { specs: [] }, `${p}/specs`, 'type'],
    ['specs a string', { specs: 'cpu=4' }, `${p}/specs`, 'type'],
    ['specs of 101 keys', { specs: keys(101) }, `${p}/specs`, 'max_properties'],
    ['spec key empty', { specs: { '': 'x' } }, `${p}/specs/`, 'min_length'],
    ['spec key of 101 characters', { specs: { [x(101)]: 'x' } }, `${p}/specs/${x(101)}`, 'max_length'],
    ['spec value of 1001 characters', { specs: { 'a/b': x(1001) } }, `${p}/specs/a~1b`, 'max_length'],
    ['spec value null', { specs: { os: null } }, `${p}/specs/os`, 'type'],
    ['spec value an object', { specs: { os: { name: 'linux' } } }, `${p}/specs/os`, 'type'],
    ['spec value an array', { specs: { os: ['linux'] } }, `${p}/specs/os`, 'type'],
    ['spec value NaN', { specs: { cpu: Number.NaN } }, `${p}/specs/cpu`, 'not_finite'],

    ['pricing_tiers an object', { pricing_tiers: { monthly: 1 } }, `${p}/pricing_tiers`, 'type'],
    [
      'pricing_tiers of 21 items',
      { pricing_tiers: Array.from({ length: 21 }, () => ({ period: 'monthly', price: 1 })) },
      `${p}/pricing_tiers`,
      'max_items',
    ],
    ['tier not an object', { pricing_tiers: [5] }, `${p}/pricing_tiers/0`, 'type'],
    ['tier without price', { pricing_tiers: [{ period: 'monthly' }] }, `${p}/pricing_tiers/0/price`, 'required'],
    ['tier without period', { pricing_tiers: [{ price: 1 }] }, `${p}/pricing_tiers/0/period`, 'required'],
    ['tier period empty', { pricing_tiers: [{ period: '', price: 1 }] }, `${p}/pricing_tiers/0/period`, 'min_length'],
    [
      'tier period of 51 characters',
      { pricing_tiers: [{ period: x(51), price: 1 }] },
      `${p}/pricing_tiers/0/period`,
      'max_length',
    ],
    [
      'tier period with NUL',
      { pricing_tiers: [{ period: 'month\u0000', price: 1 }] },
      `${p}/pricing_tiers/0/period`,
      'control_characters',
    ],
    ['tier period missing', { pricing_tiers: [{ price: 1 }] }, `${p}/pricing_tiers/0/period`, 'required'],
    [
      'two tiers naming the same period, spelled differently',
      {
        pricing_tiers: [
          { period: 'Monthly', price: 1 },
          { period: '1 month', price: 2 },
        ],
      },
      `${p}/pricing_tiers/1/period`,
      'duplicate',
    ],
    ['tier period not a string', { pricing_tiers: [{ period: 1, price: 1 }] }, `${p}/pricing_tiers/0/period`, 'type'],
    [
      'tier price negative',
      { pricing_tiers: [{ period: 'monthly', price: -1 }] },
      `${p}/pricing_tiers/0/price`,
      'minimum',
    ],
    [
      'tier price too high',
      { pricing_tiers: [{ period: 'monthly', price: 2e9 }] },
      `${p}/pricing_tiers/0/price`,
      'maximum',
    ],
    [
      'tier with an extra field',
      { pricing_tiers: [{ period: 'monthly', price: 1, currency: 'USD' }] },
      `${p}/pricing_tiers/0/currency`,
      'unknown_field',
    ],

    ['setup_fee negative', { setup_fee: -5 }, `${p}/setup_fee`, 'minimum'],
    ['setup_fee over 1e9', { setup_fee: 1e10 }, `${p}/setup_fee`, 'maximum'],
    ['setup_fee a string', { setup_fee: '5' }, `${p}/setup_fee`, 'type'],

    ['contract_duration a number', { contract_duration: 12 }, `${p}/contract_duration`, 'type'],
    ['contract_duration empty', { contract_duration: '' }, `${p}/contract_duration`, 'min_length'],
    ['contract_duration of 101 characters', { contract_duration: x(101) }, `${p}/contract_duration`, 'max_length'],
    [
      'contract_duration with NUL',
      { contract_duration: 'monthly\u0000' },
      `${p}/contract_duration`,
      'control_characters',
    ],

    ['features a string', { features: 'backups' }, `${p}/features`, 'type'],
    ['features of 101 items', { features: Array.from({ length: 101 }, () => 'x') }, `${p}/features`, 'max_items'],
    ['feature empty', { features: ['ok', ''] }, `${p}/features/1`, 'min_length'],
    ['feature of 201 characters', { features: [x(201)] }, `${p}/features/0`, 'max_length'],
    ['feature not a string', { features: [1] }, `${p}/features/0`, 'type'],
    ['datacenter_locations an object', { datacenter_locations: {} }, `${p}/datacenter_locations`, 'type'],
    [
      'datacenter_locations of 101 items',
      { datacenter_locations: Array.from({ length: 101 }, () => 'FRA') },
      `${p}/datacenter_locations`,
      'max_items',
    ],
    ['location empty', { datacenter_locations: [''] }, `${p}/datacenter_locations/0`, 'min_length'],
    ['location of 201 characters', { datacenter_locations: [x(201)] }, `${p}/datacenter_locations/0`, 'max_length'],
  ];

  it.each(cases)('%s', (_, patch, pointer, code) => {
    const { errors, truncated } = refuse({ products: [productWith(patch)] });
    expect(errors).toEqual([{ pointer, code, detail: expect.any(String) }]);
    expect(errors[0]!.detail.length).toBeGreaterThan(0);
    expect(truncated).toBe(false);
  });
});

describe('validateCatalogue accepts, within every limit', () => {
  // [case, product patch, field, stored value]
  const cases: [string, Record<string, unknown>, keyof NormalizedProduct, unknown][] = [
    ['name of 200 characters', { name: x(200) }, 'name', x(200)],
    ['name of 200 four-byte characters', { name: emoji(200) }, 'name', emoji(200)],
    ['name of 200 characters inside whitespace', { name: `  ${x(200)}\t ` }, 'name', x(200)],
    ['name of one character', { name: 'A' }, 'name', 'A'],
    ['external_id of 255 characters', { external_id: x(255) }, 'external_id', x(255)],
    ['external_id of 255 four-byte characters', { external_id: emoji(255) }, 'external_id', emoji(255)],
    ['external_id with spaces and non-breaking spaces', { external_id: ' a\u00a0b ' }, 'external_id', ' a\u00a0b '],
    ['external_id of one character', { external_id: 'a' }, 'external_id', 'a'],
    ['category of the registry', { category: 'dedicated' }, 'category', 'dedicated'],
    ['price 0', { price: 0 }, 'price', 0],
    ['price 1e9', { price: 1_000_000_000 }, 'price', 1_000_000_000],
    ['price with cents', { price: 12.34 }, 'price', 12.34],
    ['currency upper case', { currency: 'USD' }, 'currency', 'USD'],
    ['currency lower case', { currency: 'chf' }, 'currency', 'CHF'],
    ['currency mixed case', { currency: 'gBp' }, 'currency', 'GBP'],
    ['currency absent: the default', { currency: undefined }, 'currency', 'EUR'],
    ['currency null: the default', { currency: null }, 'currency', 'EUR'],
    ['description of 20 000 characters', { description: x(20_000) }, 'description', x(20_000)],
    ['description of 20 000 four-byte characters', { description: emoji(20_000) }, 'description', emoji(20_000)],
    ['description empty', { description: '' }, 'description', ''],
    ['specs of 100 keys', { specs: keys(100) }, 'specs', expect.objectContaining({ k0: '0', k99: '99' })],
    ['spec key of 100 characters', { specs: { [x(100)]: 'v' } }, 'specs', { [x(100)]: 'v' }],
    ['spec value of 1000 characters', { specs: { a: x(1000) } }, 'specs', { a: x(1000) }],
    ['spec value empty', { specs: { a: '' } }, 'specs', { a: '' }],
    ['specs empty', { specs: {} }, 'specs', {}],
    [
      'specs values as strings',
      { specs: { cpu: 4, ram: 0.5, big: 1e21, neg: -0, ssd: true, raid: false, os: 'linux' } },
      'specs',
      { cpu: '4', ram: '0.5', big: '1e+21', neg: '0', ssd: 'true', raid: 'false', os: 'linux' },
    ],
    [
      'pricing tiers in the given order',
      {
        pricing_tiers: [
          { price: 99, period: 'annually' },
          { period: 'monthly', price: 9.99 },
          { period: 'one_time', price: 0 },
        ],
      },
      'pricing_tiers',
      [
        { period: 'annually', price: 99, canonical_period: 'annually' },
        { period: 'monthly', price: 9.99, canonical_period: 'monthly' },
        { period: 'one_time', price: 0, canonical_period: 'one_time' },
      ],
    ],
    [
      'billing periods as billing systems name them, kept as sent',
      {
        pricing_tiers: [
          { period: 'Monthly', price: 5 },
          { period: 'Semi-Annually', price: 27 },
          { period: '1 year', price: 50 },
          { period: 'per fortnight', price: 3 },
          { period: 'Every other Tuesday', price: 1 },
        ],
      },
      'pricing_tiers',
      [
        { period: 'Monthly', price: 5, canonical_period: 'monthly' },
        { period: 'Semi-Annually', price: 27, canonical_period: 'semiannually' },
        { period: '1 year', price: 50, canonical_period: 'annually' },
        { period: 'per fortnight', price: 3, canonical_period: null },
        { period: 'Every other Tuesday', price: 1, canonical_period: null },
      ],
    ],
    ['no price', { price: undefined }, 'price', null],
    ['price null', { price: null }, 'price', null],
    ['pricing tiers empty', { pricing_tiers: [] }, 'pricing_tiers', []],
    [
      'every billing period once',
      {
        pricing_tiers: [
          'hourly',
          'daily',
          'weekly',
          'monthly',
          'quarterly',
          'semiannually',
          'annually',
          'biennially',
          'triennially',
          'one_time',
        ].map((period) => ({ period, price: 1 })),
      },
      'pricing_tiers',
      expect.arrayContaining([{ period: 'triennially', price: 1, canonical_period: 'triennially' }]),
    ],
    ['setup_fee 0', { setup_fee: 0 }, 'setup_fee', 0],
    ['setup_fee 1e9', { setup_fee: 1e9 }, 'setup_fee', 1e9],
    ['contract_duration "12 months"', { contract_duration: '12 months' }, 'contract_duration', 'P12M'],
    ['contract_duration "1 month"', { contract_duration: '1 month' }, 'contract_duration', 'P1M'],
    ['contract_duration " 2 Weeks "', { contract_duration: ' 2 Weeks ' }, 'contract_duration', 'P2W'],
    ['contract_duration "7 DAYS"', { contract_duration: '7 DAYS' }, 'contract_duration', 'P7D'],
    ['contract_duration "1 year"', { contract_duration: '1 year' }, 'contract_duration', 'P1Y'],
    ['contract_duration "3years"', { contract_duration: '3years' }, 'contract_duration', 'P3Y'],
    // The original interface leaves the format open: what hostdir does not read is kept as sent.
    [
      'contract_duration "Month-to-month"',
      { contract_duration: 'Month-to-month' },
      'contract_duration',
      'Month-to-month',
    ],
    [
      'contract_duration "No minimum term"',
      { contract_duration: 'No minimum term' },
      'contract_duration',
      'No minimum term',
    ],
    ['contract_duration "P1Y6M"', { contract_duration: 'P1Y6M' }, 'contract_duration', 'P1Y6M'],
    ['contract_duration "121 months"', { contract_duration: '121 months' }, 'contract_duration', '121 months'],
    ['contract_duration "2 fortnights"', { contract_duration: '2 fortnights' }, 'contract_duration', '2 fortnights'],
    ['contract_duration "120 months"', { contract_duration: '120 months' }, 'contract_duration', 'P120M'],
    ['contract_duration P1Y', { contract_duration: 'P1Y' }, 'contract_duration', 'P1Y'],
    ['contract_duration p7d', { contract_duration: 'p7d' }, 'contract_duration', 'P7D'],
    ['contract_duration P2W', { contract_duration: 'P2W' }, 'contract_duration', 'P2W'],
    ['contract_duration P120M', { contract_duration: 'P120M' }, 'contract_duration', 'P120M'],
    ['contract_duration none', { contract_duration: 'none' }, 'contract_duration', 'none'],
    ['contract_duration NONE', { contract_duration: ' NONE ' }, 'contract_duration', 'none'],
    ['features of 100 items', { features: Array.from({ length: 100 }, () => x(200)) }, 'features', expect.any(Array)],
    ['features empty', { features: [] }, 'features', []],
    ['features with 4-byte characters', { features: [emoji(200)] }, 'features', [emoji(200)]],
    [
      'locations as given',
      { datacenter_locations: ['FRA', 'FRA', 'Ams '] },
      'datacenter_locations',
      ['FRA', 'FRA', 'Ams '],
    ],
    [
      'name with right-to-left marks and a paired surrogate',
      { name: '\u202eVPS\u200f \ud83d\ude00' },
      'name',
      '\u202eVPS\u200f \ud83d\ude00',
    ],
    ['description with tabs and newlines', { description: 'a\tb\r\nc' }, 'description', 'a\tb\r\nc'],
    ['spec value with U+0001', { specs: { os: '\u0001' } }, 'specs', { os: '\u0001' }],
  ];

  it.each(cases)('%s', (_, patch, field, stored) => {
    expect(acceptOne(patch)[field]).toEqual(stored);
  });

  it('turns -0 into 0', () => {
    const p = acceptOne({ price: -0, setup_fee: -0, pricing_tiers: [{ period: 'monthly', price: -0 }] });
    expect(Object.is(p.price, 0)).toBe(true);
    expect(Object.is(p.setup_fee, 0)).toBe(true);
    expect(Object.is(p.pricing_tiers![0]!.price, 0)).toBe(true);
  });

  it('reads null and absent optional fields as cleared', () => {
    const cleared = {
      description: null,
      specs: null,
      pricing_tiers: null,
      setup_fee: null,
      contract_duration: null,
      features: null,
      datacenter_locations: null,
      stock: null,
    };
    const expected = {
      ...cleared,
      external_id: 'vps-s',
      name: 'VPS S',
      category: 'vps_cloud',
      price: 9.99,
      currency: 'EUR',
    };
    expect(acceptOne({ ...cleared, currency: null })).toEqual({ ...expected, fingerprint: expect.any(String) });
    expect(acceptOne({})).toEqual({ ...expected, fingerprint: expect.any(String) });
    expect(acceptOne({}).fingerprint).toBe(acceptOne({ ...cleared, currency: null }).fingerprint);
  });

  it('accepts up to maxProducts products, in request order', () => {
    const products = Array.from({ length: 5 }, (_, k) => productWith({ external_id: `p${k}` }));
    expect(accept({ products }).map((p) => p.external_id)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
  });
});

describe('validateCatalogue on the body as a whole', () => {
  it.each([
    ['an array', []],
    ['a string', 'products'],
    ['null', null],
    ['a number', 1],
  ])('refuses a body that is %s with one error at ""', (_, body) => {
    expect(refuse(body).errors).toEqual([{ pointer: '', code: 'type', detail: expect.stringContaining('object') }]);
  });

  it('refuses a missing, null or non-array products', () => {
    expect(refuse({}).errors).toEqual([{ pointer: '/products', code: 'required', detail: expect.any(String) }]);
    expect(refuse({ products: null }).errors).toEqual([
      { pointer: '/products', code: 'required', detail: expect.any(String) },
    ]);
    expect(refuse({ products: {} }).errors).toEqual([
      { pointer: '/products', code: 'type', detail: expect.any(String) },
    ]);
  });

  it('refuses an empty catalogue and one over maxProducts', () => {
    expect(refuse({ products: [] }).errors).toEqual([
      { pointer: '/products', code: 'min_items', detail: expect.any(String) },
    ]);
    const six = Array.from({ length: 6 }, (_, k) => productWith({ external_id: `p${k}` }));
    expect(refuse({ products: six }).errors).toEqual([
      { pointer: '/products', code: 'max_items', detail: 'must hold at most 5 products' },
    ]);
  });

  it('reports unknown top-level fields next to product errors', () => {
    const { errors } = refuse({ products: [productWith({ price: -1 })], product: [], 'x/y': 1 });
    expect(errors.map((e) => [e.pointer, e.code])).toEqual([
      ['/product', 'unknown_field'],
      ['/x~1y', 'unknown_field'],
      ['/products/0/price', 'minimum'],
    ]);
  });

  it('refuses a product that is not an object', () => {
    expect(refuse({ products: [productWith({}), 'vps-s', null] }).errors.map((e) => [e.pointer, e.code])).toEqual([
      ['/products/1', 'type'],
      ['/products/2', 'type'],
    ]);
  });

  it('collects every error of every product', () => {
    const { errors } = refuse({
      products: [
        productWith({ name: '', price: 'free' }),
        productWith({ external_id: 'b' }),
        productWith({ category: 'x', external_id: 'c' }),
      ],
    });
    expect(errors.map((e) => [e.pointer, e.code])).toEqual([
      ['/products/0/name', 'min_length'],
      ['/products/0/price', 'type'],
      ['/products/2/category', 'enum'],
    ]);
  });

  it('lists the category slugs, sorted, when a category is unknown', () => {
    const [error] = refuse({ products: [productWith({ category: 'gpu' })] }).errors;
    expect(error!.detail).toBe('must be one of: dedicated, vps_cloud, web_shared');
  });

  it('names the first index of a duplicate external_id', () => {
    const products = ['a', 'b', 'a', 'c', 'a'].map((external_id) => productWith({ external_id }));
    expect(refuse({ products }).errors).toEqual([
      { pointer: '/products/2/external_id', code: 'duplicate', detail: 'duplicate of /products/0/external_id' },
      { pointer: '/products/4/external_id', code: 'duplicate', detail: 'duplicate of /products/0/external_id' },
    ]);
  });

  it('compares external_ids exactly: case and whitespace make them different', () => {
    const products = ['a', 'A', ' a'].map((external_id) => productWith({ external_id }));
    expect(accept({ products })).toHaveLength(3);
  });

  it('names the first tier of a period given twice', () => {
    const tiers = [
      { period: 'monthly', price: 1 },
      { period: 'annually', price: 10 },
      { period: 'monthly', price: 2 },
    ];
    expect(refuse({ products: [productWith({ pricing_tiers: tiers })] }).errors).toEqual([
      {
        pointer: '/products/0/pricing_tiers/2/period',
        code: 'duplicate',
        detail: 'duplicate of /products/0/pricing_tiers/0/period (both name the monthly period)',
      },
    ]);
  });

  it('never takes two periods it does not recognise for duplicates', () => {
    const tiers = [
      { period: 'per fortnight', price: 1 },
      { period: 'per fortnight ', price: 2 },
      { period: 'lunar month', price: 3 },
    ];
    expect(validateCatalogue({ products: [productWith({ pricing_tiers: tiers })] }, OPTS).ok).toBe(true);
  });

  it('lists 100 errors and says there were more', () => {
    const products = Array.from({ length: 150 }, (_, k) => productWith({ external_id: `p${k}`, price: -1 }));
    const { errors, truncated } = refuse({ products }, { ...OPTS, maxProducts: 1000 });
    expect(errors).toHaveLength(100);
    expect(truncated).toBe(true);
    expect(errors[99]!.pointer).toBe('/products/99/price');
  });

  it('is not truncated at exactly 100 errors', () => {
    const products = Array.from({ length: 100 }, (_, k) => productWith({ external_id: `p${k}`, price: -1 }));
    const { errors, truncated } = refuse({ products }, { ...OPTS, maxProducts: 1000 });
    expect(errors).toHaveLength(100);
    expect(truncated).toBe(false);
  });

  it('does not modify the request', () => {
    const body = {
      products: [productWith({ name: '  spaced  ', currency: 'usd', specs: { cpu: 4 }, features: ['a'] })],
    };
    const copy = structuredClone(body);
    const [p] = accept(body);
    expect(body).toEqual(copy);
    p!.features!.push('b');
    expect(body).toEqual(copy);
  });
});

describe('specs keys are plain data', () => {
  it('stores __proto__ and constructor like any other key, without touching a prototype', () => {
    const body = JSON.parse(
      '{"products":[{"external_id":"a","name":"A","category":"vps_cloud","price":1,' +
        '"specs":{"__proto__":{"polluted":true},"constructor":"x","prototype":1,"toString":true}}]}',
    );
    const refused = refuse(body);
    // An object value is refused, so the payload cannot smuggle an object in under __proto__.
    expect(refused.errors).toEqual([
      { pointer: '/products/0/specs/__proto__', code: 'type', detail: expect.any(String) },
    ]);

    const ok = JSON.parse(
      '{"products":[{"external_id":"a","name":"A","category":"vps_cloud","price":1,' +
        '"specs":{"__proto__":"polluted","constructor":"x","prototype":1,"toString":true,"hasOwnProperty":false}}]}',
    );
    const [p] = accept(ok);
    const specs = p!.specs!;
    expect(Object.getPrototypeOf(specs)).toBeNull();
    expect(Object.keys(specs)).toEqual(['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']);
    expect(specs['__proto__']).toBe('polluted');
    expect(specs['constructor']).toBe('x');
    expect(specs['toString']).toBe('true');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(JSON.parse(JSON.stringify(specs))).toEqual(
      JSON.parse(
        '{"__proto__":"polluted","constructor":"x","prototype":"1","toString":"true","hasOwnProperty":"false"}',
      ),
    );
  });
});

describe('fingerprints', () => {
  it('are filled on every product and are the fingerprint of its content', () => {
    const [p] = accept({ products: [productWith({ specs: { b: 1, a: 2 } })] });
    const { fingerprint, ...content } = p!;
    expect(fingerprint).toBe(fingerprintOf(content));
  });

  it('stay what they were: the directory stores them, and a changed one would mark every product updated', () => {
    const full = acceptOne({
      name: 'VPS S',
      price: 9.99,
      currency: 'EUR',
      description: 'Fast — 🚀',
      specs: { ram: 8, cpu: '4' },
      pricing_tiers: [
        { period: 'monthly', price: 9.99 },
        { period: 'annually', price: 99 },
      ],
      setup_fee: 0,
      contract_duration: '12 months',
      features: ['NVMe', 'Backups'],
      datacenter_locations: ['FRA'],
    });
    expect(full.fingerprint).toBe('52a0f91eddc8c5a351d51d6c03d47fd4');
    expect(acceptOne({ name: 'x', category: 'dedicated', price: 0, currency: 'USD' }).fingerprint).toBe(
      'e80c35fd3e9cbb95e89550ec5a149b16',
    );
  });

  it('ignore spec key order, external_id and input spellings that normalize alike', () => {
    const a = acceptOne({
      specs: { cpu: 4, ram: '8' },
      currency: 'usd',
      contract_duration: '12 months',
      name: ' VPS S ',
    });
    const b = acceptOne({
      specs: { ram: 8, cpu: '4' },
      currency: 'USD',
      contract_duration: 'P12M',
      name: 'VPS S',
      external_id: 'other',
    });
    expect(a.fingerprint).toBe(b.fingerprint);
  });

  it('differ when any content field differs', () => {
    const full = {
      description: 'd',
      specs: { cpu: '4' },
      pricing_tiers: [
        { period: 'monthly', price: 1 },
        { period: 'annually', price: 10 },
      ],
      setup_fee: 5,
      contract_duration: 'P1M',
      features: ['a', 'b'],
      datacenter_locations: ['FRA'],
      currency: 'USD',
    };
    const variants: Record<string, unknown>[] = [
      full,
      { ...full, name: 'VPS M' },
      { ...full, category: 'dedicated' },
      { ...full, price: 9.98 },
      { ...full, currency: 'EUR' },
      { ...full, description: 'e' },
      { ...full, description: '' },
      { ...full, description: null },
      { ...full, specs: { cpu: '5' } },
      { ...full, specs: { cpu4: '' } },
      { ...full, specs: {} },
      { ...full, specs: null },
      { ...full, pricing_tiers: [...full.pricing_tiers].reverse() },
      {
        ...full,
        pricing_tiers: [
          { period: 'monthly', price: 2 },
          { period: 'annually', price: 10 },
        ],
      },
      { ...full, pricing_tiers: [] },
      { ...full, pricing_tiers: null },
      { ...full, setup_fee: 0 },
      { ...full, setup_fee: null },
      { ...full, contract_duration: 'P1Y' },
      { ...full, contract_duration: 'none' },
      { ...full, contract_duration: null },
      { ...full, features: ['ab'] },
      { ...full, features: ['b', 'a'] },
      { ...full, features: [] },
      { ...full, features: null },
      { ...full, datacenter_locations: ['FRA', 'AMS'] },
      { ...full, datacenter_locations: null },
      // Moving a value between two neighbouring fields must not give the same serialization.
      { ...full, features: ['a'], datacenter_locations: ['b', 'FRA'] },
    ];
    const fingerprints = variants.map((v) => acceptOne(v).fingerprint);
    expect(new Set(fingerprints).size).toBe(variants.length);
  });
});

describe('the largest catalogue', () => {
  it('accepts MAX_PRODUCTS complete products (speed is measured by npm run bench, not here)', () => {
    const products = Array.from({ length: 50_000 }, (_, k) => ({
      external_id: `prod-${k}`,
      name: ` Product ${k} `,
      category: 'vps_cloud',
      price: 9.99 + k,
      currency: 'usd',
      description: 'A VPS with dedicated cores',
      specs: { cpu: 4, ram_gb: 8, ssd: true, os: 'linux' },
      pricing_tiers: [
        { period: 'monthly', price: 9.99 },
        { period: 'annually', price: 99 },
      ],
      setup_fee: 0,
      contract_duration: '12 months',
      features: ['DDoS protection', 'Backups'],
      datacenter_locations: ['Frankfurt'],
    }));
    const body = JSON.parse(JSON.stringify({ products }));
    const opts = { ...OPTS, maxProducts: 50_000 };
    const result = validateCatalogue(body, opts);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.products).toHaveLength(50_000);
      expect(new Set(result.products.map((p) => p.fingerprint)).size).toBe(50_000);
    }
    expect(validateCatalogue({ products: [...products, products[0]] }, opts)).toMatchObject({
      ok: false,
      errors: [{ pointer: '/products', code: 'max_items' }],
    });
  });
});

describe('stock in the fingerprint', () => {
  const content = {
    name: 'VPS S',
    category: 'vps_cloud',
    price: 9.99,
    currency: 'EUR',
    description: null,
    specs: { cpu: '4' },
    pricing_tiers: null,
    setup_fee: null,
    contract_duration: 'P12M',
    features: null,
    datacenter_locations: ['FRA'],
  };

  it('leaves the fingerprint of a product without stock as it was before stock was a field', () => {
    // Computed by the fingerprint of the version before stock: stored products are not shown as updated by it.
    expect(fingerprintOf({ ...content, stock: null })).toBe('cc243797ed3e571860e72da3cbd381c8');
  });

  it('tells every stock apart, and from none', () => {
    const prints = [null, 0, 1, 2, 1_000_000_000].map((stock) => fingerprintOf({ ...content, stock }));
    expect(new Set(prints).size).toBe(5);
  });
});
