// Answers' schemas say "this or null" with a type list, which the serializer checks with typeof rather than by
// validating each branch of an anyOf; the JSON Schema meaning is the same.
import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { answerSchema } from '../../src/http/schemas.js';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

describe('answerSchema', () => {
  const schema = Type.Object({
    price: nullable(Type.Number({ minimum: 0 })),
    at: nullable(Type.String({ format: 'date-time', description: 'when' })),
    drop: nullable(Type.Object({ since: Type.String() }, { additionalProperties: false })),
    tiers: nullable(Type.Array(Type.Object({ period: nullable(Type.String()) }))),
    kind: nullable(Type.Literal('disk')),
    either: Type.Union([Type.String(), Type.Number()]),
  });
  const answer = answerSchema(schema) as unknown as { properties: Record<string, Record<string, unknown>> };

  it('turns an anyOf of one typed schema and null into a type list, at any depth', () => {
    expect(answer.properties.price).toEqual({ type: ['number', 'null'], minimum: 0 });
    expect(answer.properties.at).toEqual({ type: ['string', 'null'], format: 'date-time', description: 'when' });
    expect(answer.properties.drop).toMatchObject({
      type: ['object', 'null'],
      required: ['since'],
      additionalProperties: false,
    });
    expect(answer.properties.tiers).toMatchObject({
      type: ['array', 'null'],
      items: { properties: { period: { type: ['string', 'null'] } } },
    });
  });

  it('leaves a constant or an anyOf of other kinds as it is, and the given schema unchanged', () => {
    expect(answer.properties.kind).toEqual({ anyOf: [{ const: 'disk', type: 'string' }, { type: 'null' }] });
    expect(answer.properties.either).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] });
    expect(schema.properties.price.anyOf).toHaveLength(2);
  });

  it('accepts and refuses exactly what the original accepts and refuses', () => {
    const ajv = new Ajv({ allowUnionTypes: true, strict: false });
    const before = ajv.compile(JSON.parse(JSON.stringify(schema)));
    const after = ajv.compile(answer);
    const values = [
      { price: null, at: null, drop: null, tiers: null, kind: null, either: 1 },
      {
        price: 1,
        at: '2026-11-24T10:00:00Z',
        drop: { since: 'x' },
        tiers: [{ period: null }],
        kind: 'disk',
        either: 'a',
      },
      { price: -1, at: null, drop: null, tiers: null, kind: null, either: 1 },
      { price: 1, at: null, drop: { since: 1 }, tiers: null, kind: null, either: 1 },
      { price: '1', at: null, drop: null, tiers: null, kind: null, either: 1 },
      { price: 1, at: null, drop: null, tiers: [{ period: 3 }], kind: 'ssd', either: 1 },
    ];
    for (const value of values) expect(after(value), JSON.stringify(value)).toBe(before(value));
  });
});
