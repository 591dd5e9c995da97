// The providers' names and the categories' labels a search word may name, read from their own tables.
import { searchWords } from '../../catalog/search-terms.js';
import type { Queryable } from '../db.js';
import { LISTING_FIGURES_TTL_MS, keptFigure } from './kept-figures.js';

export interface NamedWords {
  hosts: { id: string; words: string[] }[];
  categories: { slug: string; words: string[] }[];
}

/** The providers and categories one of whose words starts with `word`. */
export function namesMatching(names: NamedWords, word: string): { hosts: string[]; categories: string[] } {
  const matches = (parts: readonly string[]) => parts.some((part) => part.startsWith(word));
  return {
    hosts: names.hosts.filter((host) => matches(host.words)).map((host) => host.id),
    categories: names.categories.filter((category) => matches(category.words)).map((category) => category.slug),
  };
}

/**
 * The active providers' names and the categories' labels as words, kept LISTING_FIGURES_TTL_MS like the other figures
 * beside a listing: every search with words asks for them, and reading both tables for each would double its
 * statements. A provider renamed or a category added is found by its new words within that time.
 */
export function keptNamedWords(db: Queryable): Promise<NamedWords> {
  return keptFigure(db, 'named-words', LISTING_FIGURES_TTL_MS, async () => {
    const [hosts, categories] = await Promise.all([
      db.query<{ id: string; name: string }>(`SELECT id::text AS id, name FROM hosts WHERE status = 'active'`),
      db.query<{ slug: string; label: string }>('SELECT slug, label FROM categories'),
    ]);
    return {
      hosts: hosts.rows.map((row) => ({ id: row.id, words: searchWords(row.name) })),
      categories: categories.rows.map((row) => ({
        slug: row.slug,
        words: searchWords(`${row.label} ${row.slug.replaceAll('_', ' ')}`),
      })),
    };
  });
}
