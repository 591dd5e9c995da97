// The benchmark at tiny sizes, so that it cannot rot: it must run both stores end to end and print its figures.
// Speed is never asserted here; `npm run bench` measures it.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ADMIN_DATABASE_URL } from '../support/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const FIGURES = [
  'floor_http_ms',
  'floor_parse_ms',
  'floor_copy_ms',
  'floor_select_ms',
  'floor_throughput_per_s',
  'floor_db_syncs_per_s',
  'create_ms',
  'unchanged_ms',
  'mixed_ms',
  'create_50k_ms',
  'peak_rss_mb_50k',
  'body_mb_50k',
  'throughput_syncs_per_s',
  'steady_syncs_per_s',
  'steady_cpu_ms_per_1k_products',
  'throughput_server_cpu_ms_per_sync',
  'floor_db_cpu_ms_per_sync',
  'throughput_db_cpu_ms_per_sync',
];
/** The database's own CPU: PostgreSQL's processes; the embedded store's runs inside the server, and has none apart. */
const POSTGRES_ONLY = new Set(['floor_db_cpu_ms_per_sync', 'throughput_db_cpu_ms_per_sync']);

function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'bench/run.mjs'), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, BENCH_DATABASE_URL: ADMIN_DATABASE_URL },
        timeout: 170_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('benchmark smoke run', () => {
  it('measures both stores and prints one JSON line per store, PostgreSQL last', { timeout: 180_000 }, async () => {
    const { code, stdout, stderr } = await runBench(['--smoke', '--json']);
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n');
    const json = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, any>);
    // One line per store, PostgreSQL last; then the watches' matching (bench/watches.mjs), on PostgreSQL.
    const results = json.filter((line) => 'store' in line);
    const watches = json.filter((line) => 'watches' in line);
    expect(watches).toHaveLength(1);
    expect(watches[0]).toMatchObject({ products: 1_000, watches: 10_000 });
    expect(results.map((r) => r.store)).toEqual(['embedded', 'postgres']);
    for (const result of results) {
      expect(Object.keys(result).sort()).toEqual([...FIGURES, 'machine', 'store'].sort());
      for (const figure of FIGURES) {
        if (result.store === 'embedded' && POSTGRES_ONLY.has(figure)) {
          expect(result[figure], figure).toBeNull();
          continue;
        }
        expect(Number.isFinite(result[figure]), figure).toBe(true);
        expect(result[figure], figure).toBeGreaterThan(0);
      }
      expect(result.machine).toMatchObject({ cores: expect.any(Number), node: process.version });
      expect(result.machine.postgresql).toMatch(/PostgreSQL \d+/);
    }
    // The readable table comes first, one row per figure.
    for (const figure of FIGURES) expect(stdout).toContain(figure);
  });
});
