// TypeBox schemas of a synced product (the request) and of a stored product (the listing), for the OpenAPI document.
// The request schema documents the rules; validateCatalogue enforces them (it also trims, counts after trimming,
// checks categories against the database and finds duplicates, which JSON Schema cannot express).

import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  CONTRACT_DURATION_MAX_LENGTH,
  CONTRACT_DURATION_MAX_N,
  CONTRACT_DURATION_MIN_N,
  DEFAULT_MAX_PRODUCTS,
  DESCRIPTION_MAX_LENGTH,
  EXTERNAL_ID_MAX_LENGTH,
  LIST_ITEM_MAX_LENGTH,
  LIST_MAX_ITEMS,
  NAME_MAX_LENGTH,
  PERIOD_MAX_LENGTH,
  PRICE_MAX,
  PRICING_TIERS_MAX_ITEMS,
  SPEC_KEY_MAX_LENGTH,
  SPEC_VALUE_MAX_LENGTH,
  SPECS_MAX_KEYS,
} from './limits.js';
import { CANONICAL_PERIODS } from './billing-periods.js';

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

/** A product's public id: `prd_` + a ULID. */
export const PRODUCT_ID_PATTERN = '^prd_[0-9A-HJKMNP-TV-Z]{26}$';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const optionalNullable = <T extends TSchema>(schema: T) => Type.Optional(nullable(schema));

const BillingPeriod = Type.String({
  minLength: 1,
  maxLength: PERIOD_MAX_LENGTH,
  description:
    'as the billing system names it ("Monthly", "month", "1 year", "Semi-Annually", "One Time"); recognised ' +
    'case- and punctuation-insensitively and also stored as its canonical_period; any other value is kept as sent',
});

const CanonicalPeriod = nullable(
  Type.Union(CANONICAL_PERIODS.map((period) => Type.Literal(period)), {
    description: 'the period the tier names, or null when the directory does not recognise it',
  }),
);

const Price = Type.Number({ minimum: 0, maximum: PRICE_MAX });

const StringList = Type.Array(Type.String({ minLength: 1, maxLength: LIST_ITEM_MAX_LENGTH }), {
  maxItems: LIST_MAX_ITEMS,
});

export const PricingTier = Type.Object(
  { period: BillingPeriod, price: Price },
  { additionalProperties: false, description: 'no two tiers of one product may name the same period' },
);

/** A tier as the directory keeps it: as sent, with the period it names. */
export const PricingTierOutput = Type.Object(
  { period: Type.String(), price: Type.Number(), canonical_period: CanonicalPeriod },
  { additionalProperties: false },
);

export const ProductInput = Type.Object(
  {
    external_id: Type.String({
      minLength: 1,
      maxLength: EXTERNAL_ID_MAX_LENGTH,
      pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]*$',
      description: 'the product id in the billing system; unique within the payload',
    }),
    name: Type.String({
      minLength: 1,
      maxLength: NAME_MAX_LENGTH,
      description: `1–${NAME_MAX_LENGTH} characters after trimming surrounding whitespace; stored trimmed`,
    }),
    category: Type.String({ description: 'one of the category slugs of GET /api/v1/categories' }),
    price: optionalNullable(
      Type.Number({ minimum: 0, maximum: PRICE_MAX, description: 'the monthly price; absent or null: price on request' }),
    ),
    currency: optionalNullable(
      Type.String({
        pattern: '^[A-Za-z]{3}$',
        description: "an ISO 4217 code, any case; stored upper case; absent: the host's default currency",
      }),
    ),
    description: optionalNullable(Type.String({ maxLength: DESCRIPTION_MAX_LENGTH })),
    specs: optionalNullable(
      Type.Record(
        Type.String(),
        Type.Union([Type.String({ maxLength: SPEC_VALUE_MAX_LENGTH }), Type.Number(), Type.Boolean()]),
        {
          maxProperties: SPECS_MAX_KEYS,
          propertyNames: { minLength: 1, maxLength: SPEC_KEY_MAX_LENGTH },
          description: 'every value is stored as a string (4 → "4", true → "true")',
        },
      ),
    ),
    pricing_tiers: optionalNullable(Type.Array(PricingTier, { maxItems: PRICING_TIERS_MAX_ITEMS })),
    setup_fee: optionalNullable(Price),
    contract_duration: optionalNullable(
      Type.String({
        minLength: 1,
        maxLength: CONTRACT_DURATION_MAX_LENGTH,
        description:
          `any string; P<n>D, P<n>W, P<n>M, P<n>Y, "<n> days|weeks|months|years" or "none" (n from ` +
          `${CONTRACT_DURATION_MIN_N} to ${CONTRACT_DURATION_MAX_N}) is stored in ISO form ("12 months" → "P12M"), ` +
          'any other ("Month-to-month") as sent',
      }),
    ),
    features: optionalNullable(StringList),
    datacenter_locations: optionalNullable(StringList),
  },
  {
    additionalProperties: false,
    description: 'the complete state of one product; an optional field absent or null clears what was stored',
  },
);

/** The body of POST /api/v1/sync/products; maxProducts is the configured MAX_PRODUCTS. */
export function syncRequestBodySchema(maxProducts: number = DEFAULT_MAX_PRODUCTS) {
  return Type.Object(
    {
      products: Type.Array(ProductInput, {
        minItems: 1,
        maxItems: maxProducts,
        description: "the host's complete catalogue: active products left out are deactivated",
      }),
    },
    { additionalProperties: false },
  );
}

export const SyncRequestBody = syncRequestBodySchema();

/** A stored product as GET /api/v1/products returns it: normalized values, cleared fields null. */
export const ProductOutput = Type.Object(
  {
    id: Type.String({ pattern: PRODUCT_ID_PATTERN }),
    external_id: Type.String(),
    name: Type.String(),
    category: Type.String(),
    price: nullable(Type.Number({ description: 'null: no price given (price on request)' })),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    description: nullable(Type.String()),
    specs: nullable(Type.Record(Type.String(), Type.String())),
    pricing_tiers: nullable(Type.Array(PricingTierOutput)),
    setup_fee: nullable(Type.Number()),
    contract_duration: nullable(
      Type.String({ description: 'ISO 8601 duration of one unit (P12M), "none", or a duration hostdir does not read, as sent' }),
    ),
    features: nullable(Type.Array(Type.String())),
    datacenter_locations: nullable(Type.Array(Type.String())),
    status: Type.Union([Type.Literal('active'), Type.Literal('inactive')]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    deactivated_at: nullable(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export type ProductInput = Static<typeof ProductInput>;
export type SyncRequestBody = Static<typeof SyncRequestBody>;
export type ProductOutput = Static<typeof ProductOutput>;
