// Slugs: how hosts and categories are named in URLs and in the API (contract section 1).

/** A host's slug. The schema's CHECK says the same (migration 001). */
export const HOST_SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';

/** A category's slug (underscores allowed, as in `vps_cloud`). The schema's CHECK says the same (migration 001). */
export const CATEGORY_SLUG_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';

const HOST_SLUG = new RegExp(HOST_SLUG_PATTERN);

export function isHostSlug(candidate: string): boolean {
  return HOST_SLUG.test(candidate);
}

/** "Acme Hosting, Inc." → "acme-hosting-inc"; may be empty, or still no slug, for a name without letters or digits. */
export function slugFromName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
}
