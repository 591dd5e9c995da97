// A small run of the search benchmark (bench/search.mjs), so that the script keeps working: it generates a few
// thousand products with the same SQL as the full run, serves them, and runs its 20 searches over HTTP.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { ADMIN_DATABASE_URL } from '../support/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DATABASE = `hostdir_bench_smoke_${randomBytes(5).toString('hex')}`;

afterAll(async () => {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await client.end();
});

it('generates products, serves them and times 20 searches', async () => {
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench/search.mjs')], {
      env: {
        ...process.env,
        TEST_DATABASE_URL: ADMIN_DATABASE_URL,
        BENCH_DATABASE: DATABASE,
        BENCH_PRODUCTS: '3000',
        BENCH_ROUNDS: '2',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines).toHaveLength(23);
  const summary = JSON.parse(lines.at(-1)!);
  expect(summary).toMatchObject({ bench: 'search', products: 3000, hosts: 10 });
  expect(summary.median_ms).toBeGreaterThan(0);
  // Every search found something except none: the generated data covers every filter.
  for (const line of lines.slice(1, 21)) expect(line, line).toMatch(/\s[1-9]\d* results/);
});
