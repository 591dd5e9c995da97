// glibc's malloc settings the embedded server fixes when it starts, through the small native addon in native/malloc
// (built at install where a C compiler is present; README, "Sizing").
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * glibc's malloc serves a block of this size or more by mmap, and gives it back to the system when it is freed. It is
 * glibc's own starting threshold (128 KiB), which glibc would otherwise raise, for good, to the size of any mmapped
 * block freed, keeping up to twice that of freed memory in its heap: the embedded store's PostgreSQL and pg's buffers
 * free such blocks all the time (README, "Memory of a large sync").
 */
export const MMAP_THRESHOLD_BYTES = 128 * 1024;

/**
 * The arenas glibc's malloc may make, which the process's threads share. glibc makes up to eight per core, one per
 * thread that allocates while another holds an arena, and each keeps what it freed: the embedded server had nine
 * once started, most of them made while its modules loaded.
 */
export const ARENA_MAX = 2;

interface MallocAddon {
  /** mallopt(M_MMAP_THRESHOLD, bytes), which also ends glibc's raising of it; false where it did nothing */
  fixMmapThreshold(bytes: number): boolean;
  /** mallopt(M_ARENA_MAX, arenas); false where it did nothing */
  fixArenaMax(arenas: number): boolean;
  /** blocks glibc's malloc holds by mmap (mallinfo2's hblks), or -1 where it cannot say */
  mmappedBlocks(): number;
  /** the arenas glibc's malloc has made (the heaps malloc_info lists), or -1 where it cannot say */
  arenas(): number;
}

/** Where the addon is built, from dist/ as from src/. */
const ADDON_PATH = fileURLToPath(new URL('../native/malloc/build/Release/malloc.node', import.meta.url));

/** The native addon, or why there is none. */
export function mallocAddon(): MallocAddon | Error {
  try {
    return createRequire(import.meta.url)(ADDON_PATH) as MallocAddon;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

interface Setting {
  /** what glibc reads from the environment at exec, as a variable and as a tunable */
  variable: string;
  tunable: string;
  value: number;
  fix(addon: MallocAddon, value: number): boolean;
  fixed: string;
}

const SETTINGS = {
  mmap_threshold: {
    variable: 'MALLOC_MMAP_THRESHOLD_',
    tunable: 'glibc.malloc.mmap_threshold',
    value: MMAP_THRESHOLD_BYTES,
    fix: (addon, bytes) => addon.fixMmapThreshold(bytes),
    fixed: `fixed at ${MMAP_THRESHOLD_BYTES} bytes`,
  },
  arena_max: {
    variable: 'MALLOC_ARENA_MAX',
    tunable: 'glibc.malloc.arena_max',
    value: ARENA_MAX,
    fix: (addon, arenas) => addon.fixArenaMax(arenas),
    fixed: `fixed at ${ARENA_MAX}`,
  },
} satisfies Record<string, Setting>;

export type MallocSetting = keyof typeof SETTINGS;
export type MallocOutcomes = Record<MallocSetting, string>;

/** What the environment node started in set (glibc reads it only then), if anything. */
function fromEnvironment(setting: Setting, env: NodeJS.ProcessEnv): string | null {
  const variable = env[setting.variable];
  if (variable !== undefined) return `${setting.variable}=${variable}`;
  const tunable = (env.GLIBC_TUNABLES ?? '').split(':').find((pair) => pair.startsWith(`${setting.tunable}=`));
  return tunable ? `GLIBC_TUNABLES ${tunable}` : null;
}

const NOT_SET = 'glibc’s own (not set by hostdir)';
let outcomes: MallocOutcomes = { mmap_threshold: NOT_SET, arena_max: NOT_SET };

/**
 * Fixes each setting, unless the environment node started in (`env`, process.env by default) set it. Returns, and keeps
 * for the start's log line (mallocOutcomes), what was done.
 */
export function fixMallocSettings(env: NodeJS.ProcessEnv = process.env): MallocOutcomes {
  const addon = process.platform === 'linux' ? mallocAddon() : new Error('not Linux');
  const outcome = (setting: Setting): string => {
    const own = fromEnvironment(setting, env);
    if (own !== null) return `set by the environment (${own})`;
    if (process.platform !== 'linux') return 'glibc’s own: not Linux';
    if (addon instanceof Error) {
      return (addon as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND'
        ? 'glibc’s own: native/malloc is not built (npm install builds it where a C compiler is present)'
        : `glibc’s own: native/malloc did not load (${addon.message.split('\n')[0]})`;
    }
    return setting.fix(addon, setting.value) ? setting.fixed : 'left as it is: the C library is not glibc';
  };
  outcomes = { mmap_threshold: outcome(SETTINGS.mmap_threshold), arena_max: outcome(SETTINGS.arena_max) };
  return outcomes;
}

/**
 * On the embedded store (no DATABASE_URL), before the server's modules load: threads that allocate while they load
 * would each make an arena of their own. On PostgreSQL glibc keeps its own settings.
 */
export function fixMallocSettingsForStore(databaseUrl: string | undefined): void {
  if ((databaseUrl ?? '').trim() === '') fixMallocSettings();
}

/** What fixMallocSettings did in this process, for the start's log line. */
export function mallocOutcomes(): MallocOutcomes {
  return outcomes;
}
