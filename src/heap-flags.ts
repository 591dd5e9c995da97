// V8 flags the server sets itself. Imported by main.ts before anything else, so that what is set here applies while
// the server's modules load; a flag node was started with always wins.
import v8 from 'node:v8';

/** Whether node was started with a V8 flag matching `pattern`, on its command line or in NODE_OPTIONS. */
export function startedWith(pattern: RegExp): boolean {
  return process.execArgv.some((flag) => pattern.test(flag)) || pattern.test(process.env.NODE_OPTIONS ?? '');
}

/**
 * The young generation keeps the size V8 starts it at (two semi-spaces of 1 MB) instead of doubling up to two of
 * 16 MB, on the embedded store: loading the server's modules and PGlite grew it to 16 MB before any request, and a
 * large sync to 32 MB, most of it garbage by the next scavenge, in a process that holds PostgreSQL besides. A
 * 50 000-product sync peaked 30-45 MB lower; its time and the small syncs' CPU did not change beyond the
 * benchmark's noise (README, "Memory of a large sync"). V8 reads the factor whenever it would grow the space; the
 * semi-spaces' own sizes only when node starts, hence the factor.
 */
const KEEP_YOUNG_GENERATION = 1;

/** V8's own factor, which a server on PostgreSQL goes back to once its store is known. */
const V8_YOUNG_GENERATION_GROWTH = 2;

const ownYoungGeneration = startedWith(/semi[-_]space/);
if (!ownYoungGeneration) v8.setFlagsFromString(`--semi-space-growth-factor=${KEEP_YOUNG_GENERATION}`);

/** Once the store is known: on PostgreSQL the young generation grows as V8 would (unless node was told otherwise). */
export function sizeYoungGeneration(embedded: boolean): void {
  if (!embedded && !ownYoungGeneration) v8.setFlagsFromString(`--semi-space-growth-factor=${V8_YOUNG_GENERATION_GROWTH}`);
}
