// The fields of a product's content (contract section 4), in one table: what a host may send for each, what the
// directory shows, and how it is stored. The request and answer schemas, the TypeScript types, the columns, the COPY
// rows, the row reader and the fingerprint are all derived from it, in its order. The order is the fingerprint's:
// append a new field at the end, never reorder (a reordered table would show every stored product as updated once).
// external_id is the product's key within its host, not content: it stands beside the table, not in it.

import { Type, type Static, type TNull, type TOptional, type TSchema, type TUnion } from '@sinclair/typebox';
import { CANONICAL_PERIODS } from './billing-periods.js';
import { CURRENCY_CODE_PATTERN, STORED_CURRENCY_PATTERN } from './currency.js';
import * as limits from './limits.js';

/**
 * How a field is kept, which decides its column type, its COPY text, how a row is read back and how the fingerprint
 * takes it in: text (a string), decimal (an exact numeric, shown as a JSON number), specs (an object of strings),
 * tiers (the pricing tiers), list (an array of strings) or count (a whole number, absent from the fingerprint when
 * null, so that a field appended with it leaves every stored product's fingerprint as it was).
 */
export type Storage = 'text' | 'decimal' | 'specs' | 'tiers' | 'list' | 'count';

interface FieldSpec {
  storage: Storage;
  /** required in the request; every other field may be absent or null, which clears it */
  required: boolean;
  /** the field in the request, as the OpenAPI document shows it (validate.ts enforces it) */
  input: TSchema;
  /** the field as the directory keeps and shows it */
  output: TSchema;
}

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const Price = Type.Number({ minimum: 0, maximum: limits.PRICE_MAX });

const StringList = Type.Array(Type.String({ minLength: 1, maxLength: limits.LIST_ITEM_MAX_LENGTH }), {
  maxItems: limits.LIST_MAX_ITEMS,
});

/** JSON Schema patterns have no flags, so case-insensitive words are spelled as character classes. */
function anyCase(word: string): string {
  let out = '';
  for (const ch of word) out += `[${ch.toUpperCase()}${ch.toLowerCase()}]`;
  return out;
}

// Integers CONTRACT_DURATION_MIN_N..CONTRACT_DURATION_MAX_N (1..120) without leading zeros; a test keeps it in
// step with limits.ts. Capture groups let the validator read n and the unit from the same pattern.
const DURATION_N = '([1-9]|[1-9][0-9]|1[01][0-9]|120)';

/**
 * contract_duration: `P<n>D|W|M|Y`, `<n> day(s)|week(s)|month(s)|year(s)` or `none`, any case, surrounding
 * whitespace allowed. Groups: 1 = n and 2 = unit of the ISO form, 3 = n and 4 = unit word of the word form.
 */
export const CONTRACT_DURATION_PATTERN =
  `^\\s*(?:${anyCase('p')}${DURATION_N}([DdWwMmYy])` +
  `|${DURATION_N}\\s*(${anyCase('day')}|${anyCase('week')}|${anyCase('month')}|${anyCase('year')})${anyCase('s')}?` +
  `|${anyCase('none')})\\s*$`;

const PricingTierInput = Type.Object(
  {
    period: Type.String({
      minLength: 1,
      maxLength: limits.PERIOD_MAX_LENGTH,
      description:
        'as the billing system names it ("Monthly", "month", "1 year", "Semi-Annually", "One Time"); recognised ' +
        'case- and punctuation-insensitively and also stored as its canonical_period; any other value is kept as sent',
    }),
    price: Price,
  },
  { additionalProperties: false, description: 'no two tiers of one product may name the same period' },
);

/** A tier as the directory keeps it: as sent, with the period it names. */
export const PricingTierOutput = Type.Object(
  {
    period: Type.String(),
    price: Type.Number(),
    canonical_period: nullable(
      Type.Union(
        CANONICAL_PERIODS.map((period) => Type.Literal(period)),
        {
          description: 'the period the tier names, or null when the directory does not recognise it',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const PRODUCT_FIELDS = {
  name: {
    storage: 'text',
    required: true,
    input: Type.String({
      minLength: 1,
      maxLength: limits.NAME_MAX_LENGTH,
      description: `1–${limits.NAME_MAX_LENGTH} characters after trimming surrounding whitespace; stored trimmed`,
    }),
    output: Type.String(),
  },
  category: {
    storage: 'text',
    required: true,
    input: Type.String({ description: 'one of the category slugs of GET /api/v1/categories' }),
    output: Type.String(),
  },
  price: {
    storage: 'decimal',
    required: false,
    input: Type.Number({
      minimum: 0,
      maximum: limits.PRICE_MAX,
      description: 'the monthly price; absent or null: price on request',
    }),
    output: nullable(Type.Number({ description: 'null: no price given (price on request)' })),
  },
  currency: {
    storage: 'text',
    required: false,
    input: Type.String({
      pattern: CURRENCY_CODE_PATTERN,
      description: "an ISO 4217 code, any case; stored upper case; absent: the host's default currency",
    }),
    output: Type.String({ pattern: STORED_CURRENCY_PATTERN }),
  },
  description: {
    storage: 'text',
    required: false,
    input: Type.String({ maxLength: limits.DESCRIPTION_MAX_LENGTH }),
    output: nullable(Type.String()),
  },
  specs: {
    storage: 'specs',
    required: false,
    input: Type.Record(
      Type.String(),
      Type.Union([Type.String({ maxLength: limits.SPEC_VALUE_MAX_LENGTH }), Type.Number(), Type.Boolean()]),
      {
        maxProperties: limits.SPECS_MAX_KEYS,
        propertyNames: { minLength: 1, maxLength: limits.SPEC_KEY_MAX_LENGTH },
        description: 'every value is stored as a string (4 → "4", true → "true")',
      },
    ),
    output: nullable(Type.Record(Type.String(), Type.String())),
  },
  pricing_tiers: {
    storage: 'tiers',
    required: false,
    input: Type.Array(PricingTierInput, { maxItems: limits.PRICING_TIERS_MAX_ITEMS }),
    output: nullable(Type.Array(PricingTierOutput)),
  },
  setup_fee: {
    storage: 'decimal',
    required: false,
    input: Price,
    output: nullable(Type.Number()),
  },
  contract_duration: {
    storage: 'text',
    required: false,
    input: Type.String({
      minLength: 1,
      maxLength: limits.CONTRACT_DURATION_MAX_LENGTH,
      description:
        `any string; P<n>D, P<n>W, P<n>M, P<n>Y, "<n> days|weeks|months|years" or "none" (n from ` +
        `${limits.CONTRACT_DURATION_MIN_N} to ${limits.CONTRACT_DURATION_MAX_N}) is stored in ISO form ("12 months" → "P12M"), ` +
        'any other ("Month-to-month") as sent',
    }),
    output: nullable(
      Type.String({
        description: 'ISO 8601 duration of one unit (P12M), "none", or a duration hostdir does not read, as sent',
      }),
    ),
  },
  features: {
    storage: 'list',
    required: false,
    input: StringList,
    output: nullable(Type.Array(Type.String())),
  },
  datacenter_locations: {
    storage: 'list',
    required: false,
    input: StringList,
    output: nullable(Type.Array(Type.String())),
  },
  stock: {
    storage: 'count',
    required: false,
    input: Type.Integer({
      minimum: 0,
      maximum: limits.STOCK_MAX,
      description:
        'units the provider can still sell: 0 = sold out; absent or null: not tracked (an extension beyond the ' +
        'original interface document)',
    }),
    output: nullable(Type.Integer({ description: 'units left (0: sold out); null: not tracked' })),
  },
} as const satisfies Record<string, FieldSpec>;

export type ProductField = keyof typeof PRODUCT_FIELDS;

/** The content fields in the table's order. */
export const PRODUCT_FIELD_NAMES = Object.keys(PRODUCT_FIELDS) as ProductField[];

type Outputs = { [K in ProductField]: (typeof PRODUCT_FIELDS)[K]['output'] };

/** Each content field as the directory shows it, for the answers' schemas. */
export const CONTENT_OUTPUT = Object.fromEntries(
  PRODUCT_FIELD_NAMES.map((name) => [name, PRODUCT_FIELDS[name].output]),
) as Outputs;

/** A product's content as the directory keeps it: every field of the table, normalized, cleared ones null. */
export type Content = { -readonly [K in ProductField]: Static<Outputs[K]> };

type Inputs = {
  [K in ProductField]: (typeof PRODUCT_FIELDS)[K]['required'] extends true
    ? (typeof PRODUCT_FIELDS)[K]['input']
    : TOptional<TUnion<[(typeof PRODUCT_FIELDS)[K]['input'], TNull]>>;
};

/** Each content field as the request may carry it: optional fields may also be absent or null. */
export const CONTENT_INPUT = Object.fromEntries(
  PRODUCT_FIELD_NAMES.map((name): [ProductField, TSchema] => {
    const { required, input }: FieldSpec = PRODUCT_FIELDS[name];
    return [name, required ? input : Type.Optional(nullable(input))];
  }),
) as Inputs;
