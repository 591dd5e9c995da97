// A small run of the read benchmark (bench/read.mjs), so that it keeps working: a few thousand products loaded by
// COPY, the seven answers with 2 processes (the cluster, and nginx with a worker for each), directly, through nginx
// and from the floor, for half a second each, and beside them a baseline build (of HEAD: the way BENCH_BASELINE builds
// and loads another ref). Speed is never asserted here; npm run bench:read measures it.
import { afterAll, expect, it } from 'vitest';
import { benchDatabase, runBenchScript } from '../support/bench.js';
import { ADMIN_DATABASE_URL } from '../support/server.js';

const database = benchDatabase('hostdir_bench_read_smoke');

afterAll(() => database.drop());

it(
  'loads products, serves them and measures every answer against its floor, directly, through nginx and on a baseline',
  { timeout: 300_000 },
  async () => {
    const run = await runBenchScript('read.mjs', ['--json'], {
      BENCH_DATABASE_URL: ADMIN_DATABASE_URL,
      BENCH_DATABASE: database.name,
      BENCH_PRODUCTS: '3000',
      BENCH_DURATION: '0.5',
      BENCH_WARMUP: '0',
      BENCH_BASELINE: 'HEAD',
      BENCH_PROCESSES: '2',
    });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(result).toMatchObject({ bench: 'read', products: 3000, hosts: 10, clients: 32 });
    const pages = ['home', 'category', 'search', 'product', 'json_search', 'json_price', 'json_value'];
    expect(Object.keys(result.figures)).toEqual(['2']);
    for (const processes of ['2']) {
      expect(Object.keys(result.figures[processes])).toEqual(pages);
      for (const page of pages) {
        for (const where of ['floor', 'direct', 'cached', 'baseline']) {
          const figure = result.figures[processes][page][where];
          expect(figure.rps, `${processes} × ${page} ${where}`).toBeGreaterThan(0);
          expect(figure.p99_ms).toBeGreaterThanOrEqual(figure.p50_ms);
          // What each request cost: the processes answering it (the floor's, hostdir's with its workers, nginx's) and autocannon.
          expect(figure.server_cpu_ms, `${processes} × ${page} ${where}`).toBeGreaterThan(0);
          expect(figure.client_cpu_ms).toBeGreaterThan(0);
        }
        // hostdir reads PostgreSQL for every answer it makes.
        expect(result.figures[processes][page].direct.db_cpu_ms).toBeGreaterThan(0);
      }
    }
    for (const page of pages) expect(result.bytes[page]).toBeGreaterThan(1000);
    expect(result.baseline).toMatchObject({ ref: 'HEAD' });
    expect(result.baseline.sha).toMatch(/^[0-9a-f]{40}$/);
    // Three targets per answer (the uncached p99, the cache's ratio, the ratio to the baseline), and the price-per
    // sort's ratio to the price sort.
    expect(result.targets).toHaveLength(3 * pages.length + 1);
    const valueTargets = result.targets.filter((t: { target: string }) => t.target === '≥ 0.9 × json_price /s');
    expect(valueTargets.map((t: { processes: number; page: string }) => [t.processes, t.page])).toEqual([
      [2, 'json_value'],
    ]);
    // The readable table comes first.
    expect(run.stdout).toContain('uncached p99 ≤ 100 ms');
    expect(run.stdout).toContain('cached ≥ 10 × uncached');
    expect(run.stdout).toContain('≥ 0.9 × baseline /s');
    expect(run.stdout).toContain('≥ 0.9 × json_price /s');
  },
);
