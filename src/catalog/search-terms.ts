// How the directory reads what a visitor types into the search box: words matched as prefixes, sizes written with
// their unit ("16 GB", "4 cores") matched as the sizes the specs give, and place names of several words ("Frankfurt am
// Main") or in another form ("München", "UK") matched as the place the gazetteer reads them as. Pure.
import { facet } from './derived.js';
import { COUNTRY_LABELS, foldWords, placeNamed, PLACE_NAME_WORDS } from './gazetteer.js';
import { sizeToken } from './specs.js';

/**
 * One thing the search asks for: every one of `words` as a prefix in the product's text, or (as well) `token` as a
 * word of its text, or `facet` among its facets. A term of one plain word may also name a provider or a category.
 */
export interface SearchTerm {
  words: string[];
  token?: string;
  facet?: string;
}

/** At most this many words of a query are read: a longer one is cut. */
export const SEARCH_WORDS_MAX = 8;

/** Words of a text query, lower case; anything else is dropped. */
export function searchWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, SEARCH_WORDS_MAX);
}

/** Words that join others in what visitors type ("vps in frankfurt"): left out when any other word is given. */
const JOINING_WORDS = new Set([
  'a',
  'an',
  'and',
  'at',
  'by',
  'for',
  'from',
  'in',
  'near',
  'of',
  'on',
  'or',
  'the',
  'to',
  'with',
]);

/** How a unit is written, and the unit of the tokens the specs give (`specWords`). */
const UNITS = new Map<string, string>([
  ...['gb', 'gib', 'g', 'gig', 'gigabyte', 'gigabytes'].map((unit) => [unit, 'gb'] as const),
  ...['tb', 'tib', 'terabyte', 'terabytes'].map((unit) => [unit, 'tb'] as const),
  ...['gbit', 'gbits', 'gbps'].map((unit) => [unit, 'gbit'] as const),
  ...['mbit', 'mbits', 'mbps'].map((unit) => [unit, 'mbit'] as const),
  ...['core', 'cores', 'vcore', 'vcores', 'cpu', 'cpus', 'vcpu', 'vcpus'].map((unit) => [unit, 'core'] as const),
  ...['slot', 'slots', 'player', 'players'].map((unit) => [unit, 'slot'] as const),
]);

/** A size as one word: "16gb", "4cores" → its number and unit. */
const ATTACHED_SIZE = /^(\d{1,7})([a-z]+)$/;

/**
 * The terms of a text query. Each word stays a term of its own unless it is the number of a size followed by its
 * unit ("16 GB" → "16gb": the size as a token, or the number as a whole word and the unit as a prefix) or part of a
 * place's name the product's text may not hold ("frankfurt am main", "münchen", "uk": the words as typed, or the
 * place).
 */
export function searchTerms(text: string): SearchTerm[] {
  const all = searchWords(text);
  const words = all.some((word) => !JOINING_WORDS.has(word)) ? all.filter((word) => !JOINING_WORDS.has(word)) : all;
  const terms: SearchTerm[] = [];
  for (let at = 0; at < words.length;) {
    const place = placeAt(words, at);
    if (place) {
      terms.push(place.term);
      at += place.length;
      continue;
    }
    const word = words[at]!;
    const attached = ATTACHED_SIZE.exec(word);
    const unit = attached
      ? UNITS.get(attached[2]!)
      : /^\d{1,7}$/.test(word)
        ? UNITS.get(words[at + 1] ?? '')
        : undefined;
    if (unit !== undefined) {
      const amount = Number(attached ? attached[1] : word);
      const typed = attached ? [word] : [word, words[at + 1]!];
      terms.push({ words: typed, token: sizeToken(amount, unit) });
      at += typed.length;
      continue;
    }
    terms.push({ words: [word] });
    at += 1;
  }
  return terms;
}

/**
 * The longest run of words from `at` that names a place whose name the product's text would not match as typed
 * ("fra" and "new york" match "Frankfurt" and "New York" already; "frankfurt am main" and "uk" do not).
 */
function placeAt(words: string[], at: number): { term: SearchTerm; length: number } | null {
  for (let length = Math.min(PLACE_NAME_WORDS, words.length - at); length >= 1; length--) {
    const typed = words.slice(at, at + length);
    const place = placeNamed(typed.join(' '));
    if (place === null) continue;
    const name = place.city ?? COUNTRY_LABELS.get(place.country) ?? '';
    if (foldWords(name).startsWith(foldWords(typed.join(' ')))) return null;
    return {
      term: { words: typed, facet: place.city === null ? facet.country(place.country) : facet.place(place.key) },
      length,
    };
  }
  return null;
}

/**
 * A term as a text search query (PostgreSQL's tsquery syntax): its words are letters and digits only. The number of a
 * size is matched whole ("4 cores" finds "4 vCores" as sent, not "40 GB" and "8 cores"), its unit as a prefix.
 */
export function termQuery(term: SearchTerm): string {
  // "16gb" as typed is a prefix of its own token already.
  if (term.token === undefined || term.words.length === 1) return term.words.map((word) => `${word}:*`).join(' & ');
  const [amount, unit] = term.words as [string, string];
  return `${term.token} | ${amount} & ${unit}:*`;
}
