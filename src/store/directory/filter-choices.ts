// The filters a listing offers: its locations, features, currencies and countries, the most frequent first.
import { facet } from '../../catalog/derived.js';
import { COUNTRY_LABELS, placeOf } from '../../catalog/gazetteer.js';
import type { Queryable } from '../db.js';
import { LISTING_FIGURES_TTL_MS, keptFigure } from './kept-figures.js';

export interface FilterChoices {
  /** cities by the gazetteer's name; a location it does not know as listed */
  locations: string[];
  features: string[];
  currencies: string[];
  /** ISO codes of the locations' countries */
  countries: string[];
}

/**
 * Locations, features and currencies to offer as filters, the most frequent first, read from a bounded sample
 * of the listing so that a category of a hundred thousand products costs no more than a small one.
 */
export function keptFilterChoices(
  db: Queryable,
  scope: { category?: string; hostSlug?: string },
): Promise<FilterChoices> {
  return keptFigure(db, `choices:${scope.category ?? ''}:${scope.hostSlug ?? ''}`, LISTING_FIGURES_TTL_MS, () =>
    sampleChoices(db, scope),
  );
}

async function sampleChoices(db: Queryable, scope: { category?: string; hostSlug?: string }): Promise<FilterChoices> {
  const { rows } = await db.query<{ kind: string; value: string }>(
    `WITH sample AS (
       SELECT p.datacenter_locations, p.features, p.currency
       FROM products p JOIN hosts h ON h.id = p.host_id
       WHERE p.status = 'active' AND h.status = 'active'
         AND ($1::text IS NULL OR p.category = $1::text) AND ($2::text IS NULL OR h.slug = $2::text)
       LIMIT 2000)
     (SELECT 'location' AS kind, value FROM sample, jsonb_array_elements_text(coalesce(datacenter_locations, '[]')) AS value
      GROUP BY value ORDER BY count(*) DESC, value LIMIT 40)
     UNION ALL
     (SELECT 'feature', value FROM sample, jsonb_array_elements_text(coalesce(features, '[]')) AS value
      GROUP BY value ORDER BY count(*) DESC, value LIMIT 40)
     UNION ALL
     (SELECT 'currency', currency FROM sample GROUP BY currency ORDER BY count(*) DESC, currency LIMIT 20)`,
    [scope.category ?? null, scope.hostSlug ?? null],
  );
  const of = (kind: string) => rows.filter((row) => row.kind === kind).map((row) => row.value);
  const alphabetical = (values: Iterable<string>) => [...values].sort((a, b) => a.localeCompare(b));
  // "FRA", "Frankfurt" and "Frankfurt am Main" are one choice, Frankfurt; features that differ only in case or
  // spacing are one as well (the first spelling seen, the most frequent).
  const locations = new Set<string>();
  const countries = new Set<string>();
  for (const location of of('location')) {
    const place = placeOf(location);
    locations.add(place?.city ?? location);
    if (place) countries.add(place.country);
  }
  const features = new Map<string, string>();
  for (const feature of of('feature'))
    if (!features.has(facet.feature(feature))) features.set(facet.feature(feature), feature);
  // The most frequent currency comes first: it is the one a price limit most likely means.
  return {
    locations: alphabetical(locations),
    features: alphabetical(features.values()),
    currencies: of('currency'),
    countries: [...countries].sort((a, b) => (COUNTRY_LABELS.get(a) ?? a).localeCompare(COUNTRY_LABELS.get(b) ?? b)),
  };
}
