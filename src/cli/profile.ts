// `hostdir profile show|set`: a provider's side, with its API key (like push). The options of `profile set` and of
// `hosts update` name the same fields; an empty value, or --clear, clears one.
import { PROFILE_FIELDS, type ProfileChange, type ProfileField } from '../catalog/host-profile.js';
import { problemFrom, UnreachableError } from './admin-client.js';

export interface ProfileOptions {
  website?: string;
  description?: string;
  country?: string;
  orderUrlTemplate?: string;
  /** fields to clear, comma-separated or repeated */
  clear?: string[];
}

const OPTION_OF: Record<ProfileField, keyof ProfileOptions> = {
  website: 'website',
  description: 'description',
  country: 'country',
  order_url_template: 'orderUrlTemplate',
};

export class ProfileUsageError extends Error {}

/** The change the options ask for: a value sets a field, an empty one or --clear clears it. */
export function profileChangeOf(options: ProfileOptions): ProfileChange {
  const change: ProfileChange = {};
  for (const field of PROFILE_FIELDS) {
    const value = options[OPTION_OF[field]];
    if (typeof value === 'string') change[field] = value.trim() === '' ? null : value;
  }
  for (const name of (options.clear ?? [])
    .flatMap((entry) => entry.split(','))
    .map((entry) => entry.trim().replaceAll('-', '_'))
    .filter(Boolean)) {
    if (!(PROFILE_FIELDS as readonly string[]).includes(name)) {
      throw new ProfileUsageError(`--clear takes ${PROFILE_FIELDS.join(', ')}; got "${name}"`);
    }
    change[name as ProfileField] = null;
  }
  if (Object.keys(change).length === 0) {
    throw new ProfileUsageError(
      'nothing to change: give --website, --description, --country, --order-url-template or --clear',
    );
  }
  return change;
}

export interface Profile {
  slug: string;
  name: string;
  website: string | null;
  description: string | null;
  country: string | null;
  order_url_template: string | null;
}

/** GET or PATCH /api/v1/profile with the provider's key. */
export async function providerProfile(
  baseUrl: string,
  apiKey: string,
  fetchFn: typeof fetch,
  change?: ProfileChange,
): Promise<{ profile: Profile }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${apiKey}`,
    accept: 'application/json, application/problem+json',
  };
  if (change) headers['content-type'] = 'application/json';
  let status: number;
  let text: string;
  try {
    const response = await fetchFn(`${baseUrl}/api/v1/profile`, {
      method: change ? 'PATCH' : 'GET',
      headers,
      body: change ? JSON.stringify(change) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    throw new UnreachableError(baseUrl, error instanceof Error ? error.message : String(error));
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (status < 200 || status > 299) throw problemFrom(status, parsed);
  return parsed as { profile: Profile };
}

/** The profile as lines of text. */
export function profileText(profile: Omit<Profile, 'slug' | 'name'> & { slug: string; name: string }): string {
  const rows: [string, string | null][] = [
    ['host', `${profile.name} (${profile.slug})`],
    ['website', profile.website],
    ['description', profile.description],
    ['country', profile.country],
    ['order link', profile.order_url_template],
  ];
  return rows.map(([label, value]) => `${label.padEnd(12)} ${value ?? '—'}`).join('\n');
}
