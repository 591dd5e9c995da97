// The figures kept beside the listing, per database: approximate by design, and far dearer to compute than to show.
import type { Queryable } from '../db.js';

/**
 * Figures beside the listing that are approximate by design (category counts capped at CATEGORY_COUNT_CAP, filter
 * choices read from a sample, which words are common by the last ANALYZE) cost far more to compute than to show: at a
 * million products, tens of milliseconds to seconds. Each is kept per database for `ttlMs` and computed again by one
 * caller while the others get the value it replaces; the first caller waits. The products listed are never kept.
 */
const recent = new WeakMap<Queryable, Map<string, { at: number; value: Promise<unknown> }>>();

/**
 * The most figures kept per database. Keys come from requests (the words of a search, a search's filters): without a
 * bound, a client sending ever new words would grow the process without end. The oldest go first.
 */
const KEPT_FIGURES_MAX = 10_000;

/** The figures kept for `db`, with room for one more. */
export function keptFigures<V>(store: WeakMap<Queryable, Map<string, V>>, db: Queryable): Map<string, V> {
  let entries = store.get(db);
  if (!entries) store.set(db, (entries = new Map()));
  while (entries.size >= KEPT_FIGURES_MAX) entries.delete(entries.keys().next().value!);
  return entries;
}

export function keptFigure<T>(db: Queryable, key: string, ttlMs: number, compute: () => Promise<T>): Promise<T> {
  const entries = keptFigures(recent, db);
  const kept = entries.get(key);
  const now = performance.now();
  if (kept && now - kept.at < ttlMs) return kept.value as Promise<T>;
  const value = compute();
  if (!kept) {
    // The first value: every caller waits for it; should it fail, the next caller computes again.
    entries.set(key, { at: now, value });
    value.catch(() => entries.delete(key));
    return value;
  }
  // A value to replace: served until the new one is known (a failure keeps it for another ttlMs).
  kept.at = now;
  value.then(
    () => entries.set(key, { at: now, value }),
    () => {},
  );
  return kept.value as Promise<T>;
}

/** How long counts and filter choices are kept: the shared cache's s-maxage, within the freshness promise. */
export const LISTING_FIGURES_TTL_MS = 5_000;
/** Word statistics change only with ANALYZE. */
export const WORD_STATISTICS_TTL_MS = 60_000;
