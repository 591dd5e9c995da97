// A small run of the search benchmark (bench/search.mjs), so that the script keeps working: it generates a few
// thousand products with the same SQL as the full run, serves them, and runs its 30 searches over HTTP, on a database
// set as deploy/postgresql/hostdir.conf sets hostdir's.
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { databaseUrlOf, withClient } from '../../bench/support.mjs';
import { benchDatabase, runBenchScript } from '../support/bench.js';
import { ADMIN_DATABASE_URL } from '../support/server.js';

const database = benchDatabase('hostdir_bench_smoke');

afterAll(() => database.drop());

it('generates products, serves them and times 30 searches', async () => {
  const run = await runBenchScript('search.mjs', [], {
    TEST_DATABASE_URL: ADMIN_DATABASE_URL,
    BENCH_DATABASE: database.name,
    BENCH_PRODUCTS: '3000',
    BENCH_ROUNDS: '2',
  });
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.trim().split('\n');
  expect(lines).toHaveLength(33);
  const summary = JSON.parse(lines.at(-1)!);
  expect(summary).toMatchObject({ bench: 'search', products: 3000, hosts: 10 });
  expect(summary.median_ms).toBeGreaterThan(0);
  expect(summary.spec_search.median_ms).toBeGreaterThan(0);
  // Each sort by price per resource measured beside its price sort.
  expect(summary.price_per_beside_price.map((pair: { search: string }) => pair.search)).toEqual([
    'everything, cheapest per GB of RAM',
    'category, cheapest per CPU core',
    'category, cheapest per GB of disk',
    'category, dearest per GB of RAM',
  ]);
  // Every search found something but the two words no product has both of, and the alternatives of the dearest plan
  // (which may have none): the generated data covers every filter.
  for (const line of lines.slice(1, 31))
    expect(line, line).toMatch(
      line.startsWith('text, two words never together')
        ? /\s0 results/
        : line.startsWith('alternatives')
          ? /\s\d+ results/
          : /\s[1-9]\d* results/,
    );
  // The database carries the deployment's settings, as every connection to it sees them.
  const deployed = /^work_mem = (\S+)$/m.exec(
    readFileSync(new URL('../../deploy/postgresql/hostdir.conf', import.meta.url), 'utf8'),
  )?.[1];
  expect(deployed).toBeDefined();
  const shown = await withClient(databaseUrlOf(ADMIN_DATABASE_URL, database.name), (client) =>
    client.query<{ work_mem: string }>('SHOW work_mem'),
  );
  expect(shown.rows[0]!.work_mem).toBe(deployed);
});
