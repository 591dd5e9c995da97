// What the directory derives from a product's content to filter and search on, stored beside the content by the
// sync's write: the normalized specs, the facets (places, countries, folded locations and features) and the words
// the search adds to the name and description. Pure.
import { COUNTRY_LABELS, foldKey, placeOf } from './gazetteer.js';
import type { Content } from './product-fields.js';
import { normalizeSpecs, SPECS_VERSION, specWords, type ComparableSpecs } from './specs.js';

/**
 * The gazetteer's, the facets' and the search words' own version: raise it when they read a location or a feature
 * differently or add other words. 2: spec sizes as tokens ("16gb", "4core") and "ram".
 */
const FACETS_VERSION = 2;

/**
 * The version of everything derived here. Rows stored with another are derived again when a server starts
 * (store/derived.ts): a product the host re-sends unchanged is never rewritten, so a new parser would otherwise
 * leave its values stale for good.
 */
export const DERIVED_VERSION = SPECS_VERSION * 1000 + FACETS_VERSION;

export interface Derived {
  spec_values: ComparableSpecs;
  /** "c:DE" a country, "p:frankfurt-de" a city, "l:frankfurtammain" a location folded, "f:ddosprotection" a feature folded */
  facets: string[];
  search_extra: string;
  derived_version: number;
}

/** Facet values, shared with the filters that look for them. */
export const facet = {
  country: (code: string) => `c:${code.toUpperCase()}`,
  place: (key: string) => `p:${key}`,
  location: (location: string) => `l:${foldKey(location)}`,
  feature: (feature: string) => `f:${foldKey(feature)}`,
};

type DerivedFrom = Pick<Content, 'category' | 'specs' | 'features' | 'datacenter_locations'>;

export function derivedOf(content: DerivedFrom): Derived {
  const specValues = normalizeSpecs(content.specs, content.category);
  const facets = new Set<string>();
  const words: string[] = [];
  for (const location of content.datacenter_locations ?? []) {
    facets.add(facet.location(location));
    words.push(location);
    const place = placeOf(location);
    if (place) {
      facets.add(facet.country(place.country));
      if (place.city !== null) {
        facets.add(facet.place(place.key));
        words.push(place.city);
      }
      words.push(COUNTRY_LABELS.get(place.country) ?? '');
    }
  }
  for (const feature of content.features ?? []) {
    facets.add(facet.feature(feature));
    words.push(feature);
  }
  if (content.specs) for (const value of Object.values(content.specs)) words.push(value);
  words.push(...specWords(specValues));
  return {
    spec_values: specValues,
    facets: [...facets],
    search_extra: words.join(' ').slice(0, 20_000),
    derived_version: DERIVED_VERSION,
  };
}
