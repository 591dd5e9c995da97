// The host profile as the API takes and gives it: one TypeBox schema for the operator's and the provider's routes.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import {
  checkProfileChange,
  DESCRIPTION_MAX_LENGTH,
  PROFILE_FIELDS,
  URL_MAX_LENGTH,
  type HostProfileValues,
  type ProfileChange,
} from '../catalog/host-profile.js';
import { Problem } from './problems.js';

// Null first: the validator coerces types, and would otherwise take null for an empty string.
const orNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description: string) =>
  Type.Union([Type.Null(), schema], { description });

const FIELDS = {
  website: orNull(
    Type.String({ maxLength: URL_MAX_LENGTH }),
    "the host's website: an https:// URL without credentials; shown on its page",
  ),
  description: orNull(
    Type.String({ maxLength: DESCRIPTION_MAX_LENGTH }),
    'a short description of the host, shown on its page',
  ),
  country: orNull(
    Type.String({ maxLength: 2 }),
    'where the host is based: ISO 3166-1 alpha-2 (DE, US), any case; stored upper case',
  ),
  order_url_template: orNull(
    Type.String({ maxLength: URL_MAX_LENGTH }),
    "the link to a product's order page: an https:// URL holding {external_id}, which is replaced by the product's id " +
      'in the billing system, URL-encoded; e.g. https://billing.example.com/cart.php?a=add&pid={external_id}',
  ),
};

/** A change: each field absent is kept, null clears it, a value sets it. */
export const ProfileChangeBody = Type.Object(
  {
    website: Type.Optional(FIELDS.website),
    description: Type.Optional(FIELDS.description),
    country: Type.Optional(FIELDS.country),
    order_url_template: Type.Optional(FIELDS.order_url_template),
  },
  { additionalProperties: false, description: 'fields left out are kept; null clears one' },
);
export type ProfileChangeBody = Static<typeof ProfileChangeBody>;

export const ProfileSchema = Type.Object(
  { slug: Type.String(), name: Type.String(), ...FIELDS },
  { additionalProperties: false },
);
export const ProfileAnswer = Type.Object({ profile: ProfileSchema }, { additionalProperties: false });

/**
 * A preValidation hook: a field the profile does not have is refused (the validator would drop it silently, and a
 * misspelt field would look applied).
 */
export async function refuseUnknownProfileFields(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const unknown = Object.keys(body).filter((key) => !(PROFILE_FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    throw new Problem('VALIDATION_FAILED', `${unknown.length} unknown field(s) in the profile; nothing was changed`, {
      errors: unknown.map((key) => ({
        pointer: `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`,
        code: 'unknown_field',
        detail: `the profile has no field "${key}"`,
      })),
    });
  }
}

/** The change as stored, or 422 naming every field at fault; nothing is changed then. */
export function checkedProfileChange(body: ProfileChangeBody): ProfileChange {
  const checked = checkProfileChange(body);
  if (!checked.ok)
    throw new Problem(
      'VALIDATION_FAILED',
      `${checked.problems.length} problem(s) in the profile; nothing was changed`,
      { errors: checked.problems },
    );
  return checked.values;
}

export function profileOf(host: HostProfileValues & { slug: string; name: string }): Static<typeof ProfileSchema> {
  return {
    slug: host.slug,
    name: host.name,
    website: host.website,
    description: host.description,
    country: host.country,
    order_url_template: host.order_url_template,
  };
}
