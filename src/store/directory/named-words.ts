// The providers' names and the categories' labels a search word may name, read from their own tables.
import { searchWords } from '../../catalog/search-terms.js';
import type { Queryable } from '../db.js';
import { LISTING_FIGURES_TTL_MS, recently } from './kept-figures.js';

export interface NamedWords {
  hosts: { id: string; words: string[] }[];
  categories: { slug: string; words: string[] }[];
  /** what each word asked for so far matches among them (kept with them, at most NAMED_MATCHES_MAX words) */
  matched: Map<string, { hosts: string[]; categories: string[] }>;
}

/** Words whose matches are kept with the names: a visitor's words come back, and a thousand names are walked each. */
const NAMED_MATCHES_MAX = 1_000;

/** The providers and categories one of whose words starts with `word`. */
export function namesMatching(names: NamedWords, word: string): { hosts: string[]; categories: string[] } {
  let found = names.matched.get(word);
  if (found === undefined) {
    const matches = (parts: readonly string[]) => parts.some((part) => part.startsWith(word));
    found = {
      hosts: names.hosts.filter((host) => matches(host.words)).map((host) => host.id),
      categories: names.categories.filter((category) => matches(category.words)).map((category) => category.slug),
    };
    if (names.matched.size >= NAMED_MATCHES_MAX) names.matched.clear();
    names.matched.set(word, found);
  }
  return found;
}

export function namedWords(db: Queryable): Promise<NamedWords> {
  return recently(db, 'named-words', LISTING_FIGURES_TTL_MS, async () => {
    const [hosts, categories] = await Promise.all([
      db.query<{ id: string; name: string }>(`SELECT id::text AS id, name FROM hosts WHERE status = 'active'`),
      db.query<{ slug: string; label: string }>('SELECT slug, label FROM categories'),
    ]);
    return {
      hosts: hosts.rows.map((row) => ({ id: row.id, words: searchWords(row.name) })),
      categories: categories.rows.map((row) => ({ slug: row.slug, words: searchWords(`${row.label} ${row.slug.replaceAll('_', ' ')}`) })),
      matched: new Map(),
    };
  });
}

