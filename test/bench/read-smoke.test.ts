// A small run of the read benchmark (bench/read.mjs), so that it keeps working: a few thousand products loaded by
// COPY, the five answers with 1 and 2 processes, directly, through nginx and from the floor, for half a second
// each. Speed is never asserted here; npm run bench:read measures it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { ADMIN_DATABASE_URL } from '../support/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DATABASE = `hostdir_bench_read_smoke_${randomBytes(5).toString('hex')}`;

afterAll(async () => {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await client.end();
});

it('loads products, serves them and measures every answer against its floor, directly and through nginx', { timeout: 180_000 }, async () => {
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench/read.mjs'), '--json'], {
      env: { ...process.env, BENCH_DATABASE_URL: ADMIN_DATABASE_URL, BENCH_DATABASE: DATABASE, BENCH_PRODUCTS: '3000', BENCH_DURATION: '0.5', BENCH_WARMUP: '0' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  expect(run.code, run.stderr).toBe(0);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  expect(result).toMatchObject({ bench: 'read', products: 3000, hosts: 10, clients: 32 });
  const pages = ['home', 'category', 'search', 'product', 'json_search'];
  expect(Object.keys(result.figures)).toEqual(['1', '2']);
  for (const processes of ['1', '2']) {
    expect(Object.keys(result.figures[processes])).toEqual(pages);
    for (const page of pages) {
      for (const where of ['floor', 'direct', 'cached']) {
        const figure = result.figures[processes][page][where];
        expect(figure.rps, `${processes} × ${page} ${where}`).toBeGreaterThan(0);
        expect(figure.p99_ms).toBeGreaterThanOrEqual(figure.p50_ms);
      }
    }
  }
  for (const page of pages) expect(result.bytes[page]).toBeGreaterThan(1000);
  expect(result.targets).toHaveLength(2 * pages.length * 3);
  // The readable table comes first.
  expect(run.stdout).toContain('uncached ≥ 0.25 × floor');
});
