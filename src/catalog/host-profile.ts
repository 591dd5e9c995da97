// A host's public profile: website, short description, country, and the template of its products' order links.
// Pure checks; a value that fails one is refused (422), never shown as a link.

export const PROFILE_FIELDS = ['website', 'description', 'country', 'order_url_template'] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

export type HostProfileValues = { [K in ProfileField]: string | null };

/** What a request asks to change: a field absent is kept, null clears it, a string sets it. */
export type ProfileChange = Partial<HostProfileValues>;

export const URL_MAX_LENGTH = 500;
export const DESCRIPTION_MAX_LENGTH = 500;
/** The one placeholder of an order-link template: the product's id in the billing system, URL-encoded. */
export const EXTERNAL_ID_PLACEHOLDER = '{external_id}';

export interface ProfileProblem {
  pointer: string;
  code: string;
  detail: string;
}

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** Whether a two-letter code is an ISO 3166-1 alpha-2 country the runtime knows (not ZZ, "unknown region"). */
export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code) || code === 'ZZ') return false;
  try {
    return REGIONS.of(code) !== code;
  } catch {
    return false;
  }
}

export function countryName(code: string): string {
  try {
    return REGIONS.of(code) ?? code;
  } catch {
    return code;
  }
}

/** Characters no link or description may hold: controls (tabs and line breaks too, in a URL), NUL, lone surrogates. */
const URL_UNSAFE = /[\u0000-\u0020\u007f-\u009f\ud800-\udfff\\<>"`]/u;
const TEXT_UNSAFE = /[\u0000\ud800-\udfff]/u;

/** Why a URL may not be a link here (https only, a host name, no credentials), or null when it may. */
function urlProblem(value: string): string | null {
  if (value.length > URL_MAX_LENGTH) return `must be at most ${URL_MAX_LENGTH} characters`;
  if (URL_UNSAFE.test(value)) return 'must not hold spaces, control characters, quotes, angle brackets or backslashes';
  if (!/^https:\/\//i.test(value)) return 'must be an https:// URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must be an https:// URL';
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password';
  if (!url.hostname.includes('.') && url.hostname !== 'localhost') return 'must name a host such as example.com';
  return null;
}

/** Checks a change; the values as stored (trimmed, country upper case) or every problem. */
export function checkProfileChange(
  change: ProfileChange,
): { ok: true; values: ProfileChange } | { ok: false; problems: ProfileProblem[] } {
  const problems: ProfileProblem[] = [];
  const values: ProfileChange = {};
  for (const field of PROFILE_FIELDS) {
    const raw = change[field];
    if (raw === undefined) continue;
    if (raw === null) {
      values[field] = null;
      continue;
    }
    const value = raw.trim();
    const pointer = `/${field}`;
    switch (field) {
      case 'website': {
        const problem = urlProblem(value);
        if (problem) problems.push({ pointer, code: 'url', detail: problem });
        else values.website = value;
        break;
      }
      case 'order_url_template': {
        const placeholders: string[] = value.match(/\{[^}]*\}/g) ?? [];
        if (!placeholders.includes(EXTERNAL_ID_PLACEHOLDER)) {
          problems.push({
            pointer,
            code: 'template',
            detail: `must hold ${EXTERNAL_ID_PLACEHOLDER}, where each product's id goes`,
          });
          break;
        }
        const other = placeholders.find((placeholder) => placeholder !== EXTERNAL_ID_PLACEHOLDER);
        if (other) {
          problems.push({
            pointer,
            code: 'template',
            detail: `${other} is not a placeholder; only ${EXTERNAL_ID_PLACEHOLDER} is`,
          });
          break;
        }
        const problem = urlProblem(value.replaceAll(EXTERNAL_ID_PLACEHOLDER, 'id'));
        if (problem) problems.push({ pointer, code: 'url', detail: problem });
        else values.order_url_template = value;
        break;
      }
      case 'description':
        if (value.length > DESCRIPTION_MAX_LENGTH) {
          problems.push({
            pointer,
            code: 'max_length',
            detail: `must be at most ${DESCRIPTION_MAX_LENGTH} characters`,
          });
        } else if (TEXT_UNSAFE.test(value)) {
          problems.push({ pointer, code: 'control_characters', detail: 'must not hold U+0000 or unpaired surrogates' });
        } else {
          values.description = value === '' ? null : value;
        }
        break;
      case 'country': {
        const code = value.toUpperCase();
        if (!isCountryCode(code))
          problems.push({ pointer, code: 'country', detail: `"${value}" is not an ISO 3166-1 alpha-2 country code` });
        else values.country = code;
        break;
      }
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, values };
}

/** A product's order link: the template with its id, URL-encoded, in place of {external_id}. */
export function expandOrderUrl(template: string, externalId: string): string {
  return template.replaceAll(EXTERNAL_ID_PLACEHOLDER, encodeURIComponent(externalId));
}
