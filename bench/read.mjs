#!/usr/bin/env node
// The read benchmark: the public directory at 1 000 000 products over 1 000 hosts, in PostgreSQL. For seven
// answers (the home page, a category page, a search page, a product page, the JSON search, a category's JSON listing
// sorted by price and by price per GB of RAM), requests per second
// and p50/p99 latency at 32 concurrent clients (autocannon), with 1 and 2 server processes, directly and through
// nginx configured by deploy/nginx/hostdir.conf, each against its floor measured in the same run: the same server
// framework answering the same bytes, precomputed (bench/read-floor.mjs). With each: the CPU time a request cost the
// processes answering it, PostgreSQL and autocannon (Linux /proc). See docs/performance.md.
//
//   npm run bench:read                      readable table
//   npm run bench:read -- --json            … then one JSON object with every figure and its floor
//   npm run bench:read -- --write           … and writes the run's figures and targets into docs/performance.md
//   BENCH_PRODUCTS=20000 npm run bench:read a quick smoke (database hostdir_bench_read_20000)
//   BENCH_REGENERATE=1                      load the products again
//   BENCH_DURATION=10                       seconds per measurement (after BENCH_WARMUP seconds of warm-up)
//   BENCH_PROCESSES=1,2                     the numbers of server processes measured
//   BENCH_BASELINE=<git ref>                each answer also from a build of that ref, in turn with this build's
//
// With BENCH_BASELINE, the ref is built in a temporary git worktree (bench/support.mjs) and served on a database of
// its own (<database>_base, kept) holding the same products, loaded the same way under its own migrations and its
// own derivation. Each answer is then measured on this build and right after on the baseline, with the same number
// of processes, so that both see the same machine; an answer the baseline does not have is measured on this build
// alone. The target: this build's requests per second at least BENCH_MIN_RATIO (default 0.9) × the baseline's.
//
// The products are loaded with COPY into the schema the server migrates (its secondary indexes dropped during
// the load and built again after it), and kept in the database for the next run.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import copyStreams from 'pg-copy-streams';
import { startNginx } from './nginx.mjs';
import {
  buildBaseline,
  databaseUrlOf,
  freePort,
  postgresCpuBetween,
  postgresCpuReading,
  startHostdir,
  stopProcess,
  treeCpuMs,
  withClient,
  writeLastRun,
} from './support.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const JSON_OUTPUT = process.argv.includes('--json');
const WRITE = process.argv.includes('--write');
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 1_000_000);
const HOSTS = Number(process.env.BENCH_HOSTS ?? Math.max(10, Math.round(PRODUCTS / 1000)));
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CLIENTS = 32;
/** The numbers of server processes measured, `BENCH_PROCESSES=1,2` by default. */
const PROCESSES = (process.env.BENCH_PROCESSES ?? '1,2').split(',').map(Number);
if (PROCESSES.length === 0 || PROCESSES.some((count) => !Number.isInteger(count) || count < 1)) {
  throw new Error(`BENCH_PROCESSES must list numbers of processes, such as 1,2: ${process.env.BENCH_PROCESSES}`);
}
const SERVER_URL = new URL(
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
);
const DATABASE = process.env.BENCH_DATABASE ?? `hostdir_bench_read${PRODUCTS === 1_000_000 ? '' : `_${PRODUCTS}`}`;
const BASELINE = process.env.BENCH_BASELINE;
const MIN_RATIO = Number(process.env.BENCH_MIN_RATIO ?? 0.9);

const log = (message) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);

// Every process the benchmark starts dies with it.
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));

function spawnTracked(args, env) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

// ---------------------------------------------------------------------------------------------- the data

const CATEGORIES = [
  'vps_cloud',
  'vps_cloud',
  'vps_managed',
  'web_shared',
  'web_shared',
  'web_wordpress',
  'web_reseller',
  'dedicated',
  'dedicated_gpu',
  'storage',
  'backup',
  'email',
  'domain',
  'ssl',
  'cdn',
  'game_minecraft',
  'game_rust',
  'game_valheim',
  'game_cs2',
  'voice_teamspeak',
  'colocation',
];
const CURRENCIES = ['USD', 'USD', 'USD', 'EUR', 'EUR', 'GBP'];
/** Units of each currency one euro buys, loaded as a rates import would keep them. */
const RATES = { EUR: 1, USD: 1.08, GBP: 0.85 };
const WORDS = [
  'Cloud',
  'Turbo',
  'Ryzen',
  'Xeon',
  'Epyc',
  'Nvme',
  'Edge',
  'Core',
  'Prime',
  'Metal',
  'Storage',
  'Node',
  'Plus',
  'Max',
  'Lite',
  'Pro',
  'Starter',
  'Business',
  'Gaming',
  'Vault',
];
const PLACES = [
  'Frankfurt',
  'Amsterdam',
  'London',
  'Paris',
  'Helsinki',
  'Warsaw',
  'New York',
  'Dallas',
  'Singapore',
  'Tokyo',
  'Sydney',
  'Sao Paulo',
  'Toronto',
  'Mumbai',
  'Johannesburg',
  'Stockholm',
];
const EXTRAS = [
  'NVMe',
  'DDoS protection',
  'IPv6',
  'Daily backups',
  'Free SSL',
  'Snapshots',
  'Root access',
  '24/7 support',
  'cPanel',
  'Private network',
  'Unmetered traffic',
  'IPMI',
];

/** A cheap deterministic hash of i, so that a reload makes the same products. */
function mix(i) {
  let x = (i + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

function copyField(value) {
  if (value === null || value === undefined) return '\\N';
  return String(value).replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]);
}

/** Product i as a COPY row of products: every field filled as a sync stores it. */
function productRow(build, i, hostIds, now) {
  const r = mix(i);
  const s = mix(i + 7_777_777);
  const price = Math.round((1 + (r % 40_000) / 100) * 100) / 100;
  const name = `${WORDS[r % WORDS.length]} ${WORDS[(r >>> 5) % WORDS.length]} ${1 + (s % 64)}`;
  const cores = 1 << (s % 5);
  const currency = CURRENCIES[(r >>> 9) % CURRENCIES.length];
  const tiers =
    r % 10 < 7
      ? JSON.stringify([
          { period: 'Monthly', price, canonical_period: 'monthly' },
          { period: 'Annually', price: Math.round(price * 1000) / 100, canonical_period: 'annually' },
        ])
      : null;
  const created = new Date(now - (PRODUCTS - i) * 1000).toISOString();
  const category = CATEGORIES[s % CATEGORIES.length];
  const specs = { cpu_cores: String(cores), ram_gb: String(cores * 2), disk_gb: String(cores * 40) };
  const features = [EXTRAS[r % EXTRAS.length], EXTRAS[(r >>> 4) % EXTRAS.length]];
  const locations = [PLACES[s % PLACES.length], PLACES[(s >>> 4) % PLACES.length]];
  // What the sync derives from the content and writes beside it: the build's own derivation, and the price per month
  // in EUR at the rates loaded with the products (every generated plan is monthly, its price the monthly price).
  const derived = build.derivedOf({ category, specs, features, datacenter_locations: locations });
  const base = Math.round((price / RATES[currency]) * 1e6) / 1e6;
  return [
    hostIds[i % hostIds.length],
    `sku-${i}`,
    build.newId('prd'),
    s % 33 === 0 ? 'inactive' : 'active',
    name,
    category,
    price,
    currency,
    `${name}: ${cores} vCPU, ${cores * 2} GB RAM, ${cores * 40} GB ${WORDS[(s >>> 7) % WORDS.length]} storage in ${PLACES[s % PLACES.length]}.`,
    JSON.stringify(specs),
    tiers,
    s % 4 === 0 ? 0 : null,
    s % 3 === 0 ? 'P1M' : 'none',
    JSON.stringify(features),
    JSON.stringify(locations),
    (r.toString(16) + s.toString(16)).padStart(16, '0'),
    created,
    created,
    s % 33 === 0 ? created : null,
    JSON.stringify(derived.spec_values),
    JSON.stringify(derived.facets),
    derived.search_extra,
    derived.derived_version,
    price,
    base,
  ]
    .map(copyField)
    .join('\t');
}

/**
 * The modules of the build in `dir` (this checkout, or a baseline's worktree) that load its products: its derivation,
 * its ids, its migrations.
 */
async function buildAt(dir, main) {
  const module = (file) => import(path.join(dir, 'dist', file));
  const [{ derivedOf, DERIVED_VERSION }, { newId }, { migrate }, { openDatabase }] = await Promise.all([
    module('catalog/derived.js'),
    module('catalog/ids.js'),
    module('store/migrate.js'),
    module('store/open.js'),
  ]);
  return { dir, main, derivedOf, DERIVED_VERSION, newId, migrate, openDatabase };
}

async function generate(database, build) {
  const databaseUrl = databaseUrlOf(SERVER_URL, database);
  await withClient(SERVER_URL.toString(), async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${database}`);
  });
  // The schema the server runs on: its own migrations.
  const db = await build.openDatabase({
    databaseUrl,
    dataDir: os.tmpdir(),
    dbPoolSize: 2,
    statementTimeoutMs: 600_000,
    databaseReadUrls: [],
  });
  await build.migrate(db);
  await db.close();

  await withClient(databaseUrl, async (client) => {
    await client.query(`SET maintenance_work_mem = '512MB'`);
    log(`${HOSTS} hosts`);
    const { rows: hosts } = await client.query(
      `INSERT INTO hosts (slug, name, default_currency, status)
       SELECT 'host-' || lpad(h::text, 4, '0'), 'Host ' || h, 'USD', CASE WHEN h % 100 = 0 THEN 'suspended' ELSE 'active' END
       FROM generate_series(1, $1::int) AS h
       RETURNING id`,
      [HOSTS],
    );
    const hostIds = hosts.map((row) => Number(row.id));
    await client.query(
      `INSERT INTO exchange_rates (currency, rate_date, rate, source)
       SELECT currency, current_date, rate::numeric, 'bench' FROM json_each_text($1::json) AS r (currency, rate) WHERE currency <> 'EUR'`,
      [JSON.stringify(RATES)],
    );
    // Loading into a table without its secondary indexes, then building them, is much faster than maintaining them
    // row by row; the primary key and unique constraint stay.
    const { rows: indexes } = await client.query(
      `SELECT i.indexname, i.indexdef FROM pg_indexes i
       WHERE i.schemaname = current_schema() AND i.tablename = 'products'
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    );
    for (const { indexname } of indexes) await client.query(`DROP INDEX ${indexname}`);
    log(`COPY of ${PRODUCTS} products`);
    const started = Date.now();
    const now = Date.now();
    function* rows() {
      for (let from = 0; from < PRODUCTS; from += 5_000) {
        let chunk = '';
        for (let i = from; i < Math.min(PRODUCTS, from + 5_000); i++)
          chunk += productRow(build, i, hostIds, now) + '\n';
        if (from % 100_000 === 0 && from > 0) log(`  ${from} rows (${Math.round((Date.now() - started) / 1000)} s)`);
        yield chunk;
      }
    }
    await pipeline(
      Readable.from(rows()),
      client.query(
        copyStreams.from(`COPY products (host_id, external_id, id, status, name, category, price, currency, description, specs,
          pricing_tiers, setup_fee, contract_duration, features, datacenter_locations, fingerprint, created_at, updated_at,
          deactivated_at, spec_values, facets, search_extra, derived_version, monthly_equivalent, base_monthly_price)
          FROM STDIN`),
      ),
    );
    log(`COPY done in ${Math.round((Date.now() - started) / 1000)} s; building ${indexes.length} indexes`);
    for (const { indexname, indexdef } of indexes) {
      const at = Date.now();
      await client.query(indexdef);
      log(`  ${indexname} (${Math.round((Date.now() - at) / 1000)} s)`);
    }
    // Each host's last sync, as the directory shows it.
    await client.query(
      `INSERT INTO sync_runs (host_id, id, dry_run, received, created, updated, unchanged, reactivated, deactivated, started_at,
         applied_at, duration_ms)
       SELECT h.id, 'syn_' || lpad(h.id::text, 26, '0'), false, count(p.*), count(p.*), 0, 0, 0, 0, now(), now(), 1
       FROM hosts h LEFT JOIN products p ON p.host_id = h.id GROUP BY h.id`,
    );
    log('VACUUM ANALYZE');
    await client.query('VACUUM ANALYZE');
  });
}

/** Whether the kept database holds the products, on the schema the build's migrations make. */
async function isCurrent(database, build) {
  const exists = await withClient(SERVER_URL.toString(), (client) =>
    client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]).then((r) => r.rowCount > 0),
  );
  if (!exists || process.env.BENCH_REGENERATE) return false;
  const latest = Math.max(
    ...(await readdir(path.join(build.dir, 'src/store/migrations')))
      .map((name) => Number.parseInt(name, 10))
      .filter(Number.isFinite),
  );
  return withClient(databaseUrlOf(SERVER_URL, database), async (client) => {
    const { rows } = await client
      .query(
        `SELECT (SELECT count(*)::int FROM products) AS n, (SELECT max(version)::int FROM schema_migrations) AS version,
           EXISTS (SELECT 1 FROM products WHERE derived_version IS DISTINCT FROM $1) AS underived`,
        [build.DERIVED_VERSION],
      )
      .catch(() => ({ rows: [{ n: 0, version: 0, underived: true }] }));
    // Products derived by another version of the code would be derived again by the server as it starts, under load.
    return rows[0].n === PRODUCTS && rows[0].version === latest && !rows[0].underived;
  });
}

// ---------------------------------------------------------------------------------------------- servers

async function waitUntil(url, what, child, output) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}:\n${output()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not start:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The floor server with `processes` processes, answering `answers` ({path: {type, body}}). */
async function startFloor(answers, processes) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hostdir-bench-floor-'));
  const file = path.join(dir, 'answers.json');
  await writeFile(file, JSON.stringify(answers));
  const port = await freePort();
  const { child, output } = spawnTracked(
    [path.join(ROOT, 'bench/read-floor.mjs'), file, String(processes), String(port)],
    process.env,
  );
  const url = `http://127.0.0.1:${port}`;
  const first = Object.keys(answers)[0];
  await waitUntil(`${url}${first}`, 'floor server', child, output);
  return {
    url,
    pid: child.pid,
    async stop() {
      await stopProcess(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------- measuring

/** autocannon with CLIENTS connections, the paths in turn; rps and latency, failing on any answer but 200. */
async function load(base, paths, seconds) {
  const run = autocannon({
    url: base,
    connections: CLIENTS,
    duration: seconds,
    requests: paths.map((p) => ({ method: 'GET', path: p })),
  });
  let firstError = '';
  run.on('reqError', (error) => (firstError ||= error.message));
  const result = await run;
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0 || result.requests.total === 0) {
    throw new Error(
      `${base}${paths[0]}: ${result.non2xx} non-2xx, ${result.errors} errors (${firstError}), ${result.timeouts} timeouts`,
    );
  }
  return {
    rps: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    requests: result.requests.total,
  };
}

/** CPU time so far, in milliseconds: the server's processes (`pid` and its workers), PostgreSQL's, the benchmark's own. */
async function cpuNow(pid) {
  const own = process.cpuUsage();
  return {
    server: pid === undefined ? NaN : await treeCpuMs(pid),
    db: await postgresCpuReading(),
    client: (own.user + own.system) / 1000,
  };
}

const perRequest = (ms, requests) => Math.round((ms / requests) * 1000) / 1000;

/**
 * rps and latency after the warm-up, and what each request cost in CPU while they were measured: the server's
 * processes (`pid`, with its workers), PostgreSQL's (every process of the machine named postgres) and autocannon's.
 */
async function measure(base, paths, pid) {
  if (WARMUP > 0) await load(base, paths, WARMUP);
  const before = await cpuNow(pid);
  const { requests, ...figures } = await load(base, paths, DURATION);
  const after = await cpuNow(pid);
  return {
    ...figures,
    server_cpu_ms: perRequest(after.server - before.server, requests),
    db_cpu_ms: perRequest(postgresCpuBetween(before.db, after.db), requests),
    client_cpu_ms: perRequest(after.client - before.client, requests),
  };
}

/**
 * The answers measured: name → paths (a product page rotates over 100 products, the same ones in every database: the
 * products are generated alike, only their ids differ). json_price and json_value sort the same category by price and
 * by price per GB of RAM: the second must be about as fast as the first.
 */
async function pagesOf(database) {
  return withClient(databaseUrlOf(SERVER_URL, database), async (client) => {
    const { rows } = await client.query(
      `SELECT p.id FROM products p JOIN hosts h ON h.id = p.host_id
       WHERE p.status = 'active' AND h.status = 'active' ORDER BY p.fingerprint LIMIT 100`,
    );
    return {
      home: ['/'],
      category: ['/categories/vps_cloud'],
      search: ['/search?q=ryzen+storage'],
      product: rows.map((row) => `/products/${row.id}`),
      json_search: ['/api/v1/directory/products?q=turbo&category=vps_cloud&sort=price'],
      json_price: ['/api/v1/directory/products?category=vps_cloud&sort=price'],
      json_value: ['/api/v1/directory/products?category=vps_cloud&sort=price_per_ram_gb'],
    };
  });
}

/** The database of `build`, loaded unless it already holds the products as that build would. */
async function ensureData(database, build, label) {
  if (await isCurrent(database, build)) {
    log(`reusing ${database} (${PRODUCTS} products)`);
    return;
  }
  const started = Date.now();
  await generate(database, build);
  log(`loaded ${PRODUCTS} products for ${label} in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** hostdir's own answers to every path, as the floor serves them. */
async function answersOf(base, pages) {
  const answers = {};
  for (const paths of Object.values(pages)) {
    for (const p of paths) {
      const response = await fetch(`${base}${p}`);
      if (response.status !== 200) throw new Error(`${p}: ${response.status}`);
      answers[p] = {
        type: response.headers.get('content-type'),
        body: Buffer.from(await response.arrayBuffer()).toString('base64'),
      };
    }
  }
  return answers;
}

// The floor is measured beside hostdir for comparison, not as a target: on two cores nginx serving from its cache and
// the floor serving from memory meet at the same ceiling, so no uncached share of the floor could be asked for beside
// the cache's ratio.
function targetsOf(figures) {
  const out = [];
  for (const [processes, pages] of Object.entries(figures)) {
    for (const [page, f] of Object.entries(pages)) {
      out.push({
        processes: Number(processes),
        page,
        target: 'uncached p99 ≤ 100 ms',
        value: f.direct.p99_ms,
        limit: 100,
        met: f.direct.p99_ms <= 100,
      });
      out.push({
        processes: Number(processes),
        page,
        target: 'cached ≥ 10 × uncached',
        value: f.cached.rps / f.direct.rps,
        limit: 10,
        met: f.cached.rps >= 10 * f.direct.rps,
      });
      if (f.baseline) {
        out.push({
          processes: Number(processes),
          page,
          target: `≥ ${MIN_RATIO} × baseline /s`,
          value: f.direct.rps / f.baseline.rps,
          limit: MIN_RATIO,
          met: f.direct.rps >= MIN_RATIO * f.baseline.rps,
        });
      }
    }
    if (pages.json_value && pages.json_price) {
      out.push({
        processes: Number(processes),
        page: 'json_value',
        target: `≥ ${MIN_RATIO} × json_price /s`,
        value: pages.json_value.direct.rps / pages.json_price.direct.rps,
        limit: MIN_RATIO,
        met: pages.json_value.direct.rps >= MIN_RATIO * pages.json_price.direct.rps,
      });
    }
  }
  return out;
}

async function main() {
  const here = await buildAt(ROOT, path.join(ROOT, 'dist/main.js'));
  const baselineBuild = BASELINE ? await buildBaseline(BASELINE, log) : null;
  try {
    const baseline = baselineBuild ? await buildAt(baselineBuild.dir, baselineBuild.main) : null;
    const baseDatabase = `${DATABASE}_base`.slice(0, 63);
    await ensureData(DATABASE, here, 'this build');
    if (baseline) await ensureData(baseDatabase, baseline, `the baseline ${BASELINE}`);
    const run = await measureAll(here, baseline && { build: baseline, database: baseDatabase, sha: baselineBuild.sha });
    await report(run);
  } finally {
    await baselineBuild?.cleanup();
  }
}

/** The answers of `baseline` among `pages` it answers with a 200 (a baseline from before an answer lacks it). */
async function answeredBy(base, pages) {
  const answered = {};
  for (const [page, paths] of Object.entries(pages)) {
    if ((await fetch(`${base}${paths[0]}`)).status === 200) answered[page] = paths;
    else log(`the baseline does not answer ${paths[0]}: ${page} measured on this build alone`);
  }
  return answered;
}

/** Every answer with 1 and 2 processes: its floor, hostdir directly, through nginx, and the baseline's if any. */
async function measureAll(here, baseline) {
  const pages = await pagesOf(DATABASE);
  const basePages = baseline ? await pagesOf(baseline.database) : null;
  const figures = {};
  let bodies = {};
  for (const processes of PROCESSES) {
    const env = { WORKERS: String(processes) };
    const hostdir = await startHostdir(databaseUrlOf(SERVER_URL, DATABASE), env, here.main);
    const baseServer = baseline
      ? await startHostdir(databaseUrlOf(SERVER_URL, baseline.database), env, baseline.build.main)
      : null;
    const answers = await answersOf(hostdir.url, pages);
    const baseAnswered = baseServer ? await answeredBy(baseServer.url, basePages) : {};
    bodies = Object.fromEntries(
      Object.entries(pages).map(([page, paths]) => [page, Buffer.from(answers[paths[0]].body, 'base64').length]),
    );
    const floor = await startFloor(answers, processes);
    // autocannon does not honour the "Connection: close" nginx sends after keepalive_requests (1000) answers on
    // one connection: it writes its next request into the closing socket. The benchmark's connections stay open.
    const nginx = await startNginx({
      upstreams: [`127.0.0.1:${hostdir.port}`],
      workers: processes,
      extra: ' keepalive_requests 1000000000;',
    });
    figures[processes] = {};
    try {
      for (const [page, paths] of Object.entries(pages)) {
        log(`${processes} process${processes > 1 ? 'es' : ''}: ${page}`);
        // Measured one after the other, page by page, so that a change in the machine's load weighs on all of them.
        const floorFigures = await measure(floor.url, paths, floor.pid);
        const direct = await measure(hostdir.url, paths, hostdir.pid);
        const base = baseAnswered[page] ? await measure(baseServer.url, baseAnswered[page], baseServer.pid) : null;
        const cached = await measure(nginx.url, paths, nginx.pid);
        figures[processes][page] = { floor: floorFigures, direct, cached, ...(base ? { baseline: base } : {}) };
        const compared = base ? `, baseline ${base.rps}/s (p99 ${base.p99_ms} ms)` : '';
        log(
          `  floor ${floorFigures.rps}/s, hostdir ${direct.rps}/s (p99 ${direct.p99_ms} ms; CPU ms a request: server ${direct.server_cpu_ms}, PostgreSQL ${direct.db_cpu_ms})${compared}, through nginx ${cached.rps}/s`,
        );
      }
    } finally {
      await nginx.stop();
      await floor.stop();
      await hostdir.stop();
      await baseServer?.stop();
    }
  }
  return { figures, bodies, baseline: baseline && { ref: BASELINE, sha: baseline.sha } };
}

/** The run's table and targets on stdout; with --write into docs/performance.md, with --json as one object. */
async function report({ figures, bodies, baseline }) {
  const targets = targetsOf(figures);
  const rows = [
    [
      'processes',
      'page',
      'bytes',
      'floor/s',
      'hostdir/s',
      'ratio',
      'p50 ms',
      'p99 ms',
      'nginx/s',
      '× hostdir',
      'nginx p99',
      'floor cpu',
      'server cpu',
      'pg cpu',
      'client cpu',
      'base/s',
      'base p99',
      '× base',
    ],
  ];
  for (const [processes, perPage] of Object.entries(figures)) {
    for (const [page, f] of Object.entries(perPage)) {
      rows.push([
        processes,
        page,
        String(bodies[page]),
        String(f.floor.rps),
        String(f.direct.rps),
        (f.direct.rps / f.floor.rps).toFixed(2),
        String(f.direct.p50_ms),
        String(f.direct.p99_ms),
        String(f.cached.rps),
        (f.cached.rps / f.direct.rps).toFixed(1),
        String(f.cached.p99_ms),
        f.floor.server_cpu_ms.toFixed(3),
        f.direct.server_cpu_ms.toFixed(3),
        f.direct.db_cpu_ms.toFixed(3),
        f.direct.client_cpu_ms.toFixed(3),
        f.baseline ? String(f.baseline.rps) : '',
        f.baseline ? String(f.baseline.p99_ms) : '',
        f.baseline ? (f.direct.rps / f.baseline.rps).toFixed(2) : '',
      ]);
    }
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const lines = rows.map((row) =>
    row.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '),
  );
  lines.push(
    '',
    "(cpu: milliseconds of CPU a request, while measured: the floor server's; hostdir's, PostgreSQL's and autocannon's beside",
    'hostdir; base: the baseline build, measured right after hostdir)',
  );
  const against = baseline ? `; baseline ${baseline.ref} (${baseline.sha.slice(0, 12)})` : '';
  lines.push('', `targets (${CLIENTS} clients, ${DURATION} s each after ${WARMUP} s of warm-up${against}):`);
  for (const t of targets)
    lines.push(
      `  ${t.met ? 'met ' : 'MISS'}  ${t.processes} × ${t.page.padEnd(12)} ${t.target.padEnd(26)} ${t.value.toFixed(2)}`,
    );
  const machine = {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    memory_gb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    postgresql: await withClient(databaseUrlOf(SERVER_URL, DATABASE), (client) =>
      client.query('SHOW server_version').then((r) => r.rows[0].server_version),
    ),
    load_average: os.loadavg().map((value) => Math.round(value * 10) / 10),
  };
  lines.push(
    '',
    `machine: ${machine.cores} cores (${machine.cpu}), ${machine.memory_gb} GB, Node ${machine.node}, PostgreSQL ${machine.postgresql}; load average ${machine.load_average.join(' ')}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  if (WRITE) {
    const met = (processes, page, target) => {
      const found = targets.find((t) => t.processes === Number(processes) && t.page === page && t.target === target);
      return found ? (found.met ? 'met' : 'missed') : '—';
    };
    const baselineTarget = `≥ ${MIN_RATIO} × baseline /s`;
    const table = [
      [
        'processes',
        'answer',
        'bytes',
        'floor /s',
        'hostdir /s',
        'p50 ms',
        'p99 ms',
        'nginx /s',
        '× hostdir',
        'hostdir CPU ms',
        'PostgreSQL CPU ms',
        'p99 ≤ 100 ms',
        'cache ≥ 10 ×',
        ...(baseline ? ['baseline /s', 'baseline p99 ms', '× baseline', baselineTarget] : []),
      ],
    ];
    for (const [processes, perPage] of Object.entries(figures)) {
      for (const [page, f] of Object.entries(perPage)) {
        table.push([
          processes,
          page,
          String(bodies[page]),
          String(f.floor.rps),
          String(f.direct.rps),
          String(f.direct.p50_ms),
          String(f.direct.p99_ms),
          String(f.cached.rps),
          (f.cached.rps / f.direct.rps).toFixed(1),
          f.direct.server_cpu_ms.toFixed(3),
          f.direct.db_cpu_ms.toFixed(3),
          met(processes, page, 'uncached p99 ≤ 100 ms'),
          met(processes, page, 'cached ≥ 10 × uncached'),
          ...(baseline
            ? f.baseline
              ? [
                  String(f.baseline.rps),
                  String(f.baseline.p99_ms),
                  (f.direct.rps / f.baseline.rps).toFixed(2),
                  met(processes, page, baselineTarget),
                ]
              : ['—', '—', '—', '—']
            : []),
        ]);
      }
    }
    const valueTable = [['processes', 'price per GB of RAM /s', 'price /s', 'ratio', `≥ ${MIN_RATIO}`]];
    for (const t of targets.filter((target) => target.page === 'json_value' && target.target.includes('json_price'))) {
      const pages = figures[t.processes];
      valueTable.push([
        String(t.processes),
        String(pages.json_value.direct.rps),
        String(pages.json_price.direct.rps),
        t.value.toFixed(2),
        t.met ? 'met' : 'missed',
      ]);
    }
    const prefix = baseline ? `BENCH_BASELINE=${baseline.ref} (${baseline.sha.slice(0, 12)}) ` : '';
    const command = `${prefix}npm run bench:read -- ${process.argv.slice(2).join(' ')} (${PRODUCTS} products, ${CLIENTS} clients, ${DURATION} s each)`;
    await writeLastRun('read', { command, database: `PostgreSQL ${machine.postgresql}`, tables: [table, valueTable] });
  }
  if (JSON_OUTPUT) {
    process.stdout.write(
      `${JSON.stringify({ bench: 'read', products: PRODUCTS, hosts: HOSTS, clients: CLIENTS, duration_s: DURATION, bytes: bodies, figures, targets, machine, baseline })}\n`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
