// The embedded server fixes glibc's mmap threshold and its number of arenas when it starts (src/malloc-settings.ts,
// native/malloc), unless the environment node started in set them; the PostgreSQL server leaves glibc's own. What a
// process then does is read from glibc itself (mallinfo2's count of mmapped blocks, malloc_info's arenas), each time
// in a node of its own.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ADDON = path.join(ROOT, 'native/malloc/build/Release/malloc.node');
const MODULE = path.join(ROOT, 'dist/malloc-settings.js');

/**
 * On Linux npm install builds the addon where a C compiler is present; CI's machine has one, so there it must be
 * built. A machine without one runs the server without it, and the start's log must say so.
 */
const MUST_BE_BUILT = process.platform === 'linux' && process.env.HOSTDIR_FORBID_SKIPS === '1';
const BUILT = existsSync(ADDON);
const CAN_FIX = process.platform === 'linux' && BUILT;

const NOT_SET = 'glibc’s own (not set by hostdir)';
const NOT_BUILT = /native\/malloc is not built/;

/** Runs `body` (a module's code, with `addon` and `fixMallocSettings` at hand) in a node of its own; its JSON line. */
function inOwnNode<T>(body: string, nodeFlags: string[] = []): T {
  const script = `
    const { fixMallocSettings, mallocAddon } = await import(${JSON.stringify(MODULE)});
    const addon = mallocAddon();
    ${body}
  `;
  const run = spawnSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

/**
 * glibc raises its threshold past a 4 MiB block once that block is freed, so a 1 MiB buffer comes from its heap; after
 * fixMallocSettings (given `env` as the environment) a 1 MiB buffer is mmapped again.
 */
function blocksAcrossFix(env: Record<string, string>): { outcome: string; raised: number; fixed: number } {
  return inOwnNode(
    `
    const settle = async () => { for (let k = 0; k < 3; k += 1) { gc(); await new Promise((r) => setTimeout(r, 20)); } };
    let large = Buffer.allocUnsafeSlow(4 << 20);
    large = null;
    await settle();
    const kept = [];
    const before = addon.mmappedBlocks();
    kept.push(Buffer.allocUnsafeSlow(1 << 20));
    const raised = addon.mmappedBlocks() - before;
    const outcome = fixMallocSettings(${JSON.stringify(env)}).mmap_threshold;
    const after = addon.mmappedBlocks();
    kept.push(Buffer.allocUnsafeSlow(1 << 20));
    console.log(JSON.stringify({ outcome, raised, fixed: addon.mmappedBlocks() - after }));
    `,
    ['--expose-gc'],
  );
}

/**
 * Six worker threads that each allocate, started after fixMallocSettings(env) when `fix`: the arenas glibc had made
 * before them, and after.
 */
function arenasAfterThreads(fix: boolean, env: Record<string, string> = {}): { outcome: string | null; before: number; arenas: number } {
  return inOwnNode(`
    const { Worker } = await import('node:worker_threads');
    const before = addon.arenas();
    const outcome = ${fix} ? fixMallocSettings(${JSON.stringify(env)}).arena_max : null;
    const work = 'const kept = []; for (let k = 0; k < 2000; k += 1) kept.push(Buffer.allocUnsafeSlow(1000 + k));';
    const workers = Array.from({ length: 6 }, () => new Worker(work, { eval: true }));
    await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('exit', resolve))));
    console.log(JSON.stringify({ outcome, before, arenas: addon.arenas() }));
  `);
}

/** The start's log line, as the server wrote it. */
function listening(server: TestServer): { malloc_mmap_threshold?: string; malloc_arena_max?: string } {
  const line = server
    .output()
    .split('\n')
    .find((l) => l.includes('hostdir listening on'));
  expect(line, server.output()).toBeDefined();
  return JSON.parse(line!) as { malloc_mmap_threshold?: string; malloc_arena_max?: string };
}

describe('glibc’s malloc settings', () => {
  it('the addon is built wherever CI runs', () => {
    // On CI's Linux a missing addon is a failed build (npm install's log says why), not a machine without it.
    expect(BUILT || !MUST_BE_BUILT, `${ADDON} (npm install builds it)`).toBe(true);
  });

  it.runIf(CAN_FIX)('once the threshold is fixed, a 1 MiB block is mmapped again', () => {
    const { outcome, raised, fixed } = blocksAcrossFix({});
    expect(raised).toBe(0);
    expect(outcome).toBe('fixed at 131072 bytes');
    expect(fixed).toBe(1);
  });

  it.runIf(CAN_FIX)('a threshold the environment set is left as it was', () => {
    const variable = blocksAcrossFix({ MALLOC_MMAP_THRESHOLD_: '8388608' });
    expect(variable.outcome).toBe('set by the environment (MALLOC_MMAP_THRESHOLD_=8388608)');
    expect(variable.raised).toBe(0);
    expect(variable.fixed).toBe(0);
    const tunable = blocksAcrossFix({ GLIBC_TUNABLES: 'glibc.malloc.check=0:glibc.malloc.mmap_threshold=8388608' });
    expect(tunable.outcome).toBe('set by the environment (GLIBC_TUNABLES glibc.malloc.mmap_threshold=8388608)');
    expect(tunable.fixed).toBe(0);
  });

  it.runIf(CAN_FIX)('threads started once the arenas are fixed share two; left to glibc, they make more', () => {
    // Arenas node made before the call stay; the threads started after it make none past two.
    const fixed = arenasAfterThreads(true);
    expect(fixed.outcome).toBe('fixed at 2');
    expect(fixed.before).toBeGreaterThanOrEqual(1);
    expect(fixed.arenas).toBeLessThanOrEqual(Math.max(2, fixed.before));
    const own = arenasAfterThreads(false);
    expect(own.arenas).toBeGreaterThan(Math.max(2, own.before));
    const theirs = arenasAfterThreads(true, { MALLOC_ARENA_MAX: '8' });
    expect(theirs.outcome).toBe('set by the environment (MALLOC_ARENA_MAX=8)');
    expect(theirs.arenas).toBeGreaterThan(Math.max(2, theirs.before));
  });

  describe('at the server’s start', () => {
    const servers: TestServer[] = [];
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
    });

    it('are fixed on the embedded store, or the log says why not; the environment’s own are kept', async () => {
      const [ours, theirs] = await Promise.all([
        startServer('embedded'),
        startServer('embedded', { env: { MALLOC_MMAP_THRESHOLD_: '262144', GLIBC_TUNABLES: 'glibc.malloc.arena_max=4' } }),
      ]);
      servers.push(ours, theirs);
      if (CAN_FIX) {
        expect(listening(ours)).toMatchObject({ malloc_mmap_threshold: 'fixed at 131072 bytes', malloc_arena_max: 'fixed at 2' });
      } else {
        const why = process.platform === 'linux' ? NOT_BUILT : /not Linux/;
        expect(listening(ours).malloc_mmap_threshold).toMatch(why);
        expect(listening(ours).malloc_arena_max).toMatch(why);
      }
      expect(listening(theirs)).toMatchObject({
        malloc_mmap_threshold: 'set by the environment (MALLOC_MMAP_THRESHOLD_=262144)',
        malloc_arena_max: 'set by the environment (GLIBC_TUNABLES glibc.malloc.arena_max=4)',
      });
    });

    it('are glibc’s own on PostgreSQL', async () => {
      const server = await startServer('postgres');
      servers.push(server);
      expect(listening(server)).toMatchObject({ malloc_mmap_threshold: NOT_SET, malloc_arena_max: NOT_SET });
    });
  });
});
