// TypeBox schemas of a synced catalogue (the request) and of a stored product (the listing), for the OpenAPI
// document, built from the table of product fields. The request schema documents the rules; validateCatalogue
// enforces them (it also trims, counts after trimming, checks categories against the database and finds
// duplicates, which JSON Schema cannot express).

import { Type, type Static } from '@sinclair/typebox';
import { idPattern } from './ids.js';
import { DEFAULT_MAX_PRODUCTS, EXTERNAL_ID_MAX_LENGTH } from './limits.js';
import { CONTENT_INPUT, CONTENT_OUTPUT } from './product-fields.js';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const ProductInput = Type.Object(
  {
    external_id: Type.String({
      minLength: 1,
      maxLength: EXTERNAL_ID_MAX_LENGTH,
      pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F]*$',
      description: 'the product id in the billing system; unique within the payload',
    }),
    ...CONTENT_INPUT,
  },
  {
    $id: 'CatalogueProduct',
    additionalProperties: false,
    description: 'the complete state of one product; an optional field absent or null clears what was stored',
  },
);

/** A product as a client sends it (the billing-system import builds them). */
export type ProductInput = Static<typeof ProductInput>;

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

const Timestamp = Type.String({ format: 'date-time' });

/** A stored product as GET /api/v1/products returns it: normalized values, cleared fields null. */
export const ProductOutput = Type.Object(
  {
    id: Type.String({ pattern: idPattern('prd') }),
    external_id: Type.String(),
    ...CONTENT_OUTPUT,
    status: Type.Union([Type.Literal('active'), Type.Literal('inactive')]),
    created_at: Timestamp,
    updated_at: Timestamp,
    deactivated_at: nullable(Timestamp),
  },
  {
    $id: 'Product',
    additionalProperties: false,
    description: "a product of the provider's own listing, as the directory holds it",
  },
);
