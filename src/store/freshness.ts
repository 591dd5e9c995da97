// Verified freshness: a host's listing is confirmed by each applied sync (hosts.confirmed_at, written with the run);
// one whose last confirmation is older than STALE_AFTER_DAYS, or that never synced, is stale.

export interface Freshness {
  /** confirmations before this instant are stale */
  staleBefore: Date;
  /** the same, as an age: what a statement compares with the database's clock, so that its text never changes */
  staleAfterDays: number;
  /** list stale hosts' products too (the default leaves them out of searches) */
  includeStale: boolean;
}

export function freshnessOf(staleAfterDays: number, includeStale: boolean, now = Date.now()): Freshness {
  return { staleBefore: new Date(now - staleAfterDays * 86_400_000), staleAfterDays, includeStale };
}

/** A host that never synced has never been confirmed: it counts as stale. */
export function isStale(confirmedAt: string | null, freshness: Freshness): boolean {
  return confirmedAt === null || Date.parse(confirmedAt) < freshness.staleBefore.getTime();
}

/** The UTC day `days` before `now`, as YYYY-MM-DD. */
export function dayBefore(days: number, now = Date.now()): string {
  return new Date(now - days * 86_400_000).toISOString().slice(0, 10);
}
