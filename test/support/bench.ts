// Small runs of the benchmark scripts in npm test: each on a database of its own, dropped afterwards.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropDatabase } from './server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A fresh database name for one benchmark run, and a drop() for afterAll. */
export function benchDatabase(prefix: string): { name: string; drop(): Promise<void> } {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  // With BENCH_BASELINE, the benchmarks load the baseline's products into <name>_base: dropped with it.
  return { name, drop: async () => Promise.all([dropDatabase(name), dropDatabase(`${name}_base`)]).then(() => {}) };
}

/** Runs bench/<script> with `env` added to this process's; resolves with its exit code and output. */
export function runBenchScript(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench', script), ...args], {
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
