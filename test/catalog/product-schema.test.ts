import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { CONTRACT_DURATION_MAX_N, CONTRACT_DURATION_MIN_N, NAME_MAX_LENGTH } from '../../src/catalog/limits.js';
import { CONTRACT_DURATION_PATTERN } from '../../src/catalog/product-fields.js';
import { ProductOutput, syncRequestBodySchema } from '../../src/catalog/product-schema.js';

const SyncRequestBody = syncRequestBodySchema();
import { normalizeDuration } from '../../src/catalog/validate-product.js';

describe('the request schema', () => {
  it('documents the contract durations the validator reads, n within the limits', () => {
    // Without flags, as a JSON Schema validator would compile it.
    const schemaPattern = new RegExp(CONTRACT_DURATION_PATTERN);
    const samples = ['none', 'NoNe', ' none ', '', 'P', 'PM', 'P1.5M', 'P1M1D', 'PT1H', 'P+1M', '1 mon', 'months'];
    for (let n = 0; n <= 200; n++) {
      for (const unit of ['D', 'w', 'M', 'y']) samples.push(`P${n}${unit}`, `p0${n}${unit}`);
      for (const word of ['day', 'Weeks', 'MONTH', 'years']) samples.push(`${n} ${word}`, ` ${n}${word}\t`);
    }
    for (const sample of samples) {
      expect([sample, schemaPattern.test(sample)]).toEqual([sample, normalizeDuration(sample) !== null]);
    }
    expect(schemaPattern.test(`P${CONTRACT_DURATION_MAX_N}M`)).toBe(true);
    expect(schemaPattern.test(`P${CONTRACT_DURATION_MAX_N + 1}M`)).toBe(false);
    expect(schemaPattern.test(`P${CONTRACT_DURATION_MIN_N}M`)).toBe(true);
    expect(schemaPattern.test(`P${CONTRACT_DURATION_MIN_N - 1}M`)).toBe(false);
  });

  it('describes a valid catalogue and refuses unknown fields', () => {
    const product = {
      external_id: 'vps-s',
      name: 'VPS S',
      category: 'vps_cloud',
      price: 9.99,
      currency: null,
      specs: { cpu: 4, ssd: true, os: 'linux' },
      pricing_tiers: [{ period: 'monthly', price: 9.99 }],
      contract_duration: '12 months',
    };
    expect(Value.Check(SyncRequestBody, { products: [product] })).toBe(true);
    expect(Value.Check(SyncRequestBody, { products: [{ ...product, colour: 'red' }] })).toBe(false);
    expect(Value.Check(SyncRequestBody, { products: [product], extra: 1 })).toBe(false);
    expect(Value.Check(SyncRequestBody, { products: [] })).toBe(false);
    expect(Value.Check(SyncRequestBody, { products: [{ ...product, name: 'x'.repeat(NAME_MAX_LENGTH + 1) }] })).toBe(
      false,
    );
    expect(Value.Check(syncRequestBodySchema(1), { products: [product, product] })).toBe(false);
  });
});

describe('the product output schema', () => {
  // TypeBox checks only registered formats; Fastify's Ajv brings its own.
  if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)));

  it('describes a stored product with cleared fields as null', () => {
    const stored = {
      id: 'prd_01JD0000000000000000000000',
      external_id: 'vps-s',
      name: 'VPS S',
      category: 'vps_cloud',
      price: 9.99,
      currency: 'USD',
      description: null,
      specs: { cpu: '4' },
      pricing_tiers: null,
      setup_fee: null,
      contract_duration: 'P12M',
      features: null,
      datacenter_locations: ['FRA'],
      stock: null,
      status: 'active',
      created_at: '2026-11-21T12:00:00.000Z',
      updated_at: '2026-11-21T12:00:00.000Z',
      deactivated_at: null,
    };
    expect(Value.Check(ProductOutput, stored)).toBe(true);
    expect(Value.Check(ProductOutput, { ...stored, specs: { cpu: 4 } })).toBe(false);
    expect(Value.Check(ProductOutput, { ...stored, status: 'deleted' })).toBe(false);
  });
});
