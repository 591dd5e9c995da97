// VALIDATION_VERSION (src/catalog/validate.ts) names what a product's bytes validate and normalize to; receipts hold
// only under the version they were written with. A varied set of products is validated here, and a digest of what
// they validate to is recorded beside the version: any change to the rules shows as another digest, and the test
// asks for the version to be raised with it.
import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NormalizedProduct } from '../../src/catalog/types.js';
import { validateCatalogueBody, VALIDATION_VERSION } from '../../src/catalog/validate.js';
import type { ValidateOptions } from '../../src/catalog/validation-run.js';

const OPTIONS: ValidateOptions = {
  categories: new Set(['vps_cloud', 'web_shared', 'dedicated', 'dedicated_gpu']),
  defaultCurrency: 'usd',
  maxProducts: 50,
};

const product = (id: string, fields: Record<string, unknown> = {}) => ({
  external_id: id,
  name: `Plan ${id}`,
  category: 'vps_cloud',
  ...fields,
});

/** Catalogues sent as bodies: every field, at and past its limits, each normalization, and refusals of each kind. */
const CATALOGUES: unknown[][] = [
  // Every field at once.
  [
    product('full', {
      name: '  VPS M  ',
      price: 19.99,
      currency: 'eur',
      description: 'NVMe, daily backups.\nÉté — 夏 — 🌞',
      specs: {
        vcpu: 4,
        ram: '8 GB',
        disk: '160 GB NVMe',
        ipv6: true,
        bandwidth: 2.5,
        ['__proto__']: 'kept as data',
        'a/b~c': '',
      },
      pricing_tiers: [
        { period: 'monthly', price: 19.99 },
        { period: 'Semi-Annually', price: 110 },
        { period: '12 months', price: 199 },
        { period: '2 year', price: 380 },
        { period: 'biannual', price: 90 },
        { period: 'once', price: 0 },
      ],
      setup_fee: 5,
      contract_duration: '12 months',
      features: ['DDoS protection', 'Root access', 'DDoS protection'],
      datacenter_locations: ['Frankfurt, DE', 'Ashburn, VA, US', 'Singapore'],
      stock: 3,
    }),
  ],
  // Only what is required: no price (on request), the host's default currency.
  [{ external_id: 'bare', name: 'Bare', category: 'web_shared' }],
  // Nulls clear a field as absence does.
  [
    product('nulls', {
      price: null,
      currency: null,
      description: null,
      specs: null,
      pricing_tiers: null,
      setup_fee: null,
      contract_duration: null,
      features: null,
      datacenter_locations: null,
      stock: null,
    }),
  ],
  // Prices: zero, fractions, the maximum.
  [
    product('p0', { price: 0, setup_fee: 0, stock: 0 }),
    product('s1', { stock: 1_000_000_000 }),
    product('s2', { stock: -0 }),
    product('p1', { price: 0.005 }),
    product('p2', { price: 1_000_000_000, currency: 'GBP' }),
  ],
  // Contract durations read into ISO form, and others kept as sent.
  ...[
    'P12M',
    'p1y',
    ' 24 Months ',
    '1 year',
    '3 weeks',
    '7 days',
    'NONE',
    'Month-to-month',
    '0 months',
    '121 months',
    'P0M',
  ].map((contract_duration, k) => [product(`d${k}`, { contract_duration })]),
  // Tier periods recognised, unrecognised, and two that name the same period.
  [
    product('t0', {
      pricing_tiers: [
        { period: 'm', price: 1 },
        { period: 'Quarterly', price: 3 },
        { period: '1 Week', price: 0.5 },
      ],
    }),
  ],
  [
    product('t5', {
      pricing_tiers: [
        { period: 'Quarterly', price: 3 },
        { period: '3 months', price: 3 },
      ],
    }),
  ],
  [
    product('t1', {
      pricing_tiers: [
        { period: 'hourly', price: 0.01 },
        { period: '24 hours', price: 0.2 },
        { period: 'fortnightly', price: 2 },
        { period: 'Free Account', price: 0 },
      ],
    }),
  ],
  [product('t2', { pricing_tiers: Array.from({ length: 20 }, (_, k) => ({ period: `${k + 1} x`, price: k })) })],
  [product('t3', { pricing_tiers: Array.from({ length: 21 }, (_, k) => ({ period: `${k + 1} x`, price: k })) })],
  [
    product('t4', {
      pricing_tiers: [
        { period: 'monthly' },
        { price: 1 },
        { period: '', price: 1 },
        { period: 'monthly', price: -1, extra: 1 },
      ],
    }),
  ],
  // Lengths at and past each limit, counted in code points.
  [
    product('l0', { name: '🌞'.repeat(200), description: 'd'.repeat(20_000) }),
    product('x'.repeat(255), { name: 'Long id' }),
  ],
  [product('l1', { name: '🌞'.repeat(201) })],
  [product('l2', { name: '   ' })],
  [product('x'.repeat(256), { name: 'Longer id' })],
  [product('l3', { description: 'd'.repeat(20_001) })],
  [product('l4', { specs: Object.fromEntries(Array.from({ length: 100 }, (_, k) => [`k${k}`, k])) })],
  [product('l5', { specs: Object.fromEntries(Array.from({ length: 101 }, (_, k) => [`k${k}`, k])) })],
  [product('l6', { specs: { ['k'.repeat(100)]: 'v'.repeat(1_000) } })],
  [product('l7', { specs: { ['k'.repeat(101)]: 'v', long: 'v'.repeat(1_001), '': 'empty key' } })],
  [
    product('l8', {
      features: Array.from({ length: 100 }, (_, k) => `f${k}`),
      datacenter_locations: ['l'.repeat(200)],
    }),
  ],
  [product('l9', { features: Array.from({ length: 101 }, (_, k) => `f${k}`) })],
  [product('l10', { datacenter_locations: ['', 'l'.repeat(201)] })],
  [product('l11', { contract_duration: 'c'.repeat(100) })],
  [product('l12', { contract_duration: 'c'.repeat(101) })],
  // Refusals of each kind.
  [product('r0', { price: -1, setup_fee: 1_000_000_001 })],
  [product('r-stock', { stock: -1 }), product('r-stock2', { stock: 2.5 }), product('r-stock3', { stock: '3' })],
  [product('r-stock4', { stock: 1_000_000_001 })],
  [
    product('r1', {
      price: '9.99',
      currency: 7,
      specs: { nested: { a: 1 }, list: [1] },
      features: 'one',
      datacenter_locations: [1],
    }),
  ],
  [product('r2', { category: 'vps', currency: 'ZZZ', colour: 'red' })],
  [
    { name: 'No id', category: 'vps_cloud' },
    { external_id: 'no-name', category: 'vps_cloud' },
    { external_id: 'no-category', name: 'x' },
  ],
  [product('dup'), product('dup')],
  [product('r3\u0007')],
  [product('r4', { name: 'a\u0000b' })],
  [product('r5', { description: 'lone \ud800 surrogate' })],
  [product('r6', { specs: 'fast' })],
  ['not an object', null],
  // The catalogue's own bounds, and more errors than are listed.
  [],
  Array.from({ length: 51 }, (_, k) => product(`n${k}`)),
  Array.from({ length: 50 }, (_, k) => ({ external_id: `e${k}`, price: -k })),
];

interface Outcome {
  products?: NormalizedProduct[];
  errors?: string[][];
  truncated?: boolean;
}

/** What a catalogue validates to, as receipts depend on it: each product normalized, or the refusals. */
function outcome(catalogue: unknown[]): Outcome {
  const result = validateCatalogueBody(Buffer.from(JSON.stringify({ products: catalogue })), OPTIONS);
  if (result.ok) return { products: result.products as NormalizedProduct[] };
  // An error's wording is not what receipts stand for: its pointer and code are.
  return { errors: result.errors.map(({ pointer, code }) => [pointer, code]), truncated: result.truncated };
}

describe('VALIDATION_VERSION', () => {
  it('is raised whenever what products validate to changes', () => {
    const outcomes = CATALOGUES.map(outcome);
    const digest = hash('sha256', JSON.stringify(outcomes), 'base64');
    expect(
      { version: VALIDATION_VERSION, digest },
      'these products validate to something else than under this version: the rules changed. Raise VALIDATION_VERSION in ' +
        'src/catalog/validate.ts and record it here with the new digest',
    ).toEqual({ version: 2, digest: 'SUT7zbpKf2Daakl8wGXRkDRt1N2/RZ5LuEPoDulY2Xk=' });
  });

  it('is recorded from products that give every field a value, and from refusals', () => {
    const outcomes = CATALOGUES.map(outcome);
    const products = outcomes.flatMap((o) => o.products ?? []);
    const fields = new Set(
      products.flatMap((p) =>
        Object.entries(p)
          .filter(([, value]) => value !== null)
          .map(([key]) => key),
      ),
    );
    expect([...fields].sort()).toEqual(Object.keys(products[0]!).sort());
    expect(
      new Set(products.flatMap((p) => p.pricing_tiers ?? []).map((tier) => tier.canonical_period)).size,
    ).toBeGreaterThan(5);
    expect(new Set(products.map((p) => p.contract_duration)).size).toBeGreaterThan(8);
    expect(outcomes.filter((o) => o.errors).length).toBeGreaterThan(20);
  });
});
