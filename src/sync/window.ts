// The window (contract section 6): at most SYNC_MAX_PER_WINDOW applied syncs per host in any sliding window of
// SYNC_WINDOW_SECONDS, dry runs in a window of their own, and a budget of refused requests per window.
import type { Config } from '../config.js';
import type { WindowUsage } from '../store/sync-caller.js';

export type { WindowUsage };

/** Dry runs a host may make per window for each applied sync it may make: a catalogue tried out before it is sent. */
export const DRY_RUNS_PER_APPLIED_SYNC = 10;

/**
 * Refused requests (413, 415, 422) a host may send per window before it is turned away unread: enough to fix a
 * catalogue and resend it at once, again and again. A host allowed more applied syncs per window than this may be
 * refused as often as it may sync: a refusal costs no more than the sync the operator already allows.
 */
export const REFUSED_PER_WINDOW = 60;

export type WindowLimits = Pick<
  Config,
  'syncMaxPerWindow' | 'dryRunMaxPerWindow' | 'syncWindowSeconds' | 'refusedMaxPerWindow'
>;

/** The window a request is counted in: applied syncs, or dry runs. */
export interface Window {
  name: 'sync' | 'dry-run';
  dryRun: boolean;
  max: number;
  seconds: number;
}

export function windowFor(dryRun: boolean, limits: WindowLimits): Window {
  return dryRun
    ? { name: 'dry-run', dryRun, max: limits.dryRunMaxPerWindow, seconds: limits.syncWindowSeconds }
    : { name: 'sync', dryRun, max: limits.syncMaxPerWindow, seconds: limits.syncWindowSeconds };
}

export function isFull(window: Window, usage: WindowUsage): boolean {
  return usage.used >= window.max;
}

/** Whole seconds until a slot frees, at least 1. */
export function secondsUntilFree(usage: WindowUsage): number {
  return Math.max(1, usage.freesInSeconds);
}

/**
 * The usage once one more run is in the window, without asking the database again: the run was just recorded
 * under the host's lock, so it is the newest, and the oldest only changes if the window was empty.
 */
export function withOneMoreRun(window: Window, before: WindowUsage): WindowUsage {
  return before.used === 0
    ? { used: 1, freesInSeconds: window.seconds }
    : { used: Math.min(window.max, before.used + 1), freesInSeconds: before.freesInSeconds };
}

/** Past its budget of refusals, nothing of a host's is read until the oldest leaves the window. */
export function refusedTooOften(limits: WindowLimits, refusals: WindowUsage): boolean {
  return refusals.used >= limits.refusedMaxPerWindow;
}
