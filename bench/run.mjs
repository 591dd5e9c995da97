#!/usr/bin/env node
// hostdir's benchmark: the real server over HTTP on 127.0.0.1, for both stores, measured against the floors
// no implementation can beat, in the same run. See docs/performance.md.
//
//   npm run bench                      both stores, readable table
//   npm run bench -- --json            … then one JSON object per store (PostgreSQL last)
//   npm run bench -- --store postgres  one store only
//   npm run bench -- --smoke           tiny sizes, one run each, no targets: proves the benchmark still works
//   npm run bench -- --profile DIR     the server runs under `node --cpu-prof`; profiles land in DIR
//   npm run bench -- --write           … and writes the run's figures and targets into docs/performance.md
//   BENCH_WATCHES=100000 npm run bench -- --store postgres
//                                      … with that many confirmed watches present, none of them matching the
//                                      benchmark's plans: what watches cost every sync (its products noted for them)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { body, catalogue, mixedCatalogue } from './products.mjs';
import {
  applyDatabaseSettings,
  cpuMs,
  freePort,
  postgresCpuBetween,
  postgresCpuReading,
  serverArguments,
  serverEnvironment,
  stopProcess,
  writeLastRun,
} from './support.mjs';
import { issueApiKey } from '../dist/store/api-keys.js';
import { insertHost } from '../dist/store/hosts.js';
import { migrate } from '../dist/store/migrate.js';
import { validateCatalogue } from '../dist/catalog/validate.js';
import { contentRecord } from '../dist/store/product-columns.js';
import { derivedPrices } from '../dist/store/rates.js';
import { openDatabase } from '../dist/store/open.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(ROOT, 'dist/main.js');
const SCHEMA = path.join(ROOT, 'src/store/migrations');

function option(name) {
  const k = process.argv.indexOf(name);
  return k < 0 ? null : (process.argv[k + 1] ?? '');
}
const JSON_OUTPUT = process.argv.includes('--json');
const SMOKE = process.argv.includes('--smoke');
/** BENCH_WATCHES: confirmed watches present on PostgreSQL while the syncs are measured (none by default) */
const WATCHES = Number(process.env.BENCH_WATCHES ?? 0);
/** --write: the run's figures and targets replace the last run recorded in docs/performance.md */
const WRITE = process.argv.includes('--write');
const PROFILE_DIR = option('--profile');
const STORES = option('--store') ? [option('--store')] : ['embedded', 'postgres'];
/** --only create,unchanged: measure only these scenarios (while working on one); the floors always run */
const ONLY = option('--only')?.split(',') ?? null;
const wanted = (scenario) => ONLY === null || ONLY.includes(scenario);
if (WRITE && (SMOKE || ONLY)) {
  process.stderr.write('--write records whole runs only: not with --smoke or --only\n');
  process.exit(2);
}
const ADMIN_DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const SIZES = SMOKE
  ? {
      products: 40,
      big: 120,
      hosts: 8,
      hostProducts: 5,
      clients: 4,
      steadySizes: [5, 150],
      steadyHosts: 4,
      runs: 1,
      warmups: 0,
    }
  : {
      products: 10_000,
      big: 50_000,
      hosts: 500,
      hostProducts: 20,
      clients: 32,
      steadySizes: [20, 100, 500, 2000],
      steadyHosts: 40,
      runs: 5,
      warmups: 1,
    };
/** Syncs in flight at once in the steady state: billing systems that send at their own times. */
const STEADY_CLIENTS = 8;
// --runs N / --warmups N: fewer rounds while working on one figure (a figure is a median of at least 5 otherwise)
if (option('--runs')) SIZES.runs = Number(option('--runs'));
if (option('--warmups')) SIZES.warmups = Number(option('--warmups'));
const TIMES = SIZES.warmups + SIZES.runs;

const log = (line) => process.stderr.write(`${line}\n`);

// Servers the bench started die with it, also when it fails or is interrupted.
const children = new Set();
function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));

// ---------------------------------------------------------------------------------------------- measuring

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One HTTP request; resolves with status and body text once the whole answer has arrived. */
function post(url, payload, headers = {}) {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': payload.length, ...headers },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function expect200(answer, what) {
  const result = await answer;
  if (result.status !== 200 && result.status !== 201)
    throw new Error(`${what}: HTTP ${result.status} ${result.text.slice(0, 500)}`);
  return result;
}

/** Runs every task with at most `clients` in flight; resolves with the elapsed milliseconds. */
async function concurrently(tasks, clients) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
  return performance.now() - start;
}

// ---------------------------------------------------------------------------------------------- processes

function waitForLine(child, what) {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end >= 0) {
        child.stdout.off('data', onData);
        resolve(buffered.slice(0, end));
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

async function createDatabase() {
  const name = `hostdir_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  await applyDatabaseSettings(url.toString());
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** The real server (node dist/main.js) as the service unit starts it, rate limit lifted so that the window never refuses a run. */
async function startHostdir(store, databaseUrl, dataDir) {
  // A port nothing listens on now: a random one collided with another suite's server when tests ran side by side.
  const port = await freePort();
  const adminToken = `bench-admin-${randomBytes(12).toString('hex')}`;
  const deployed = serverEnvironment();
  const env = {
    ...deployed,
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    SYNC_MAX_PER_WINDOW: '1000000',
    // Idle connections are kept as long as the floor server keeps them: the client's pool reuses them across rounds,
    // and one the server had closed meanwhile failed the run (EPIPE). A round of the embedded store can take about a
    // minute, as long as the 60 s they were kept, and a run failed on a connection closed as it was reused ("socket
    // hang up"): ten minutes.
    KEEP_ALIVE_TIMEOUT_MS: '600000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
  const flags = PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`, `--cpu-prof-name=hostdir-${store}.cpuprofile`]
    : [];
  const child = track(
    spawn(process.execPath, [...flags, ...serverArguments(MAIN, deployed)], { env, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  // An embedded store's first start runs initdb in WebAssembly: seconds on an idle machine, far more on a busy one.
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`hostdir exited with ${child.exitCode}:\n${output}`);
    try {
      const answer = await fetch(`${url}/healthz`);
      if (answer.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`hostdir did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, adminToken, child, output: () => output };
}

async function startFloorServer(store, databaseUrl) {
  const child = track(
    spawn(process.execPath, [path.join(ROOT, 'bench/floor-server.mjs'), store, databaseUrl ?? ''], {
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const { port } = JSON.parse(await waitForLine(child, 'floor server'));
  return { url: `http://127.0.0.1:${port}`, child };
}

/**
 * Onboards the hosts before the server starts, with the store's own functions on its database: thousands of
 * onboardings over HTTP would take minutes on the embedded store, and they are not what is measured.
 */
async function seedHosts(databaseUrl, dataDir, count) {
  const config = { databaseUrl, dataDir, dbPoolSize: 4, statementTimeoutMs: 600_000 };
  const db = await openDatabase(config);
  try {
    await migrate(db);
    const tag = randomBytes(3).toString('hex');
    const keys = new Array(count);
    await concurrently(
      Array.from(
        { length: count },
        (_, k) => () =>
          db.transaction(async (tx) => {
            const host = await insertHost(tx, {
              slug: `bench-${tag}-${k}`,
              name: `Bench ${tag} ${k}`,
              default_currency: 'USD',
            });
            keys[k] = (await issueApiKey(tx, host.id)).key;
          }),
      ),
      4,
    );
    return keys;
  } finally {
    await db.close();
  }
}

function syncAs(server, key, payload) {
  return expect200(post(`${server.url}/api/v1/sync/products`, payload, { authorization: `Bearer ${key}` }), 'sync');
}

// ---------------------------------------------------------------------------------------------- floors

/**
 * The rows hostdir stores for `products`: each product's content as the sync normalizes it, with the columns derived
 * from it (the normalized specs, the facets, the search's words, the monthly price; store/product-columns.ts and
 * store/rates.ts), which the table's indexes read as they do a synced product's. Computed by hostdir's own functions
 * before any floor is timed; no exchange rates, as on the benchmark's server.
 */
function storedRows(products) {
  const checked = validateCatalogue(
    { products },
    { categories: new Set(products.map((p) => p.category)), defaultCurrency: 'USD', maxProducts: products.length },
  );
  if (!checked.ok) throw new Error(`the floor's products do not validate: ${JSON.stringify(checked.errors[0])}`);
  return checked.products.map((content) => ({ ...contentRecord(content), ...derivedPrices(content, new Map()) }));
}

/** The stored columns, in the order of the floors' COPY and INSERT (created_at and the rest follow). */
const STORED_COLUMNS = `host_id, external_id, id, status, name, category, price, currency, description, specs, pricing_tiers, setup_fee,
  contract_duration, features, datacenter_locations, spec_values, facets, search_extra, derived_version, monthly_equivalent,
  base_monthly_price, fingerprint`;

/** One stored row's values (STORED_COLUMNS order), as JavaScript values: null, numbers, strings and JSON text. */
function storedValues(row, hostId, id) {
  const json = (value) => (value === null || value === undefined ? null : JSON.stringify(value));
  return [
    hostId,
    row.external_id,
    id,
    'active',
    row.name,
    row.category,
    row.price,
    row.currency,
    row.description,
    json(row.specs),
    json(row.pricing_tiers),
    row.setup_fee,
    row.contract_duration,
    json(row.features),
    json(row.datacenter_locations),
    json(row.spec_values),
    json(row.facets),
    row.search_extra,
    row.derived_version,
    row.monthly_equivalent,
    row.base_monthly_price,
    randomBytes(20).toString('base64'),
  ];
}

/** The rows hostdir stores for a catalogue, in COPY text format, for the COPY floor. */
function copyText(products, hostId) {
  const field = (value) =>
    value === null || value === undefined
      ? '\\N'
      : String(value).replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]);
  const now = new Date().toISOString();
  let out = '';
  const rows = storedRows(products);
  for (let k = 0; k < rows.length; k++) {
    out +=
      [...storedValues(rows[k], hostId, `prd_${String(k).padStart(26, '0')}`), now, now, null].map(field).join('\t') +
      '\n';
  }
  return out;
}

/**
 * What the database must do for one sync of `products` of a host, however the server is written: one transaction
 * that inserts the products as stored (storedRows) and the run's record (its counts and what it did to each
 * product), sent as one message. Values are written in as literals.
 */
function dbSyncText(products, hostId, runId) {
  const quote = (value) =>
    value === null || value === undefined
      ? 'NULL'
      : typeof value === 'number'
        ? String(value)
        : `'${String(value).replaceAll("'", "''")}'`;
  const ids = products.map((_, k) => `prd_${runId}${String(k).padStart(6, '0')}`);
  const rows = storedRows(products).map((row, k) => storedValues(row, hostId, ids[k]).map(quote).join(', '));
  const actions = products.map((p, k) => `${p.external_id}\t${ids[k]}\tcreated`).join('\n');
  return `BEGIN;
INSERT INTO floor_products (${STORED_COLUMNS}, created_at, updated_at)
VALUES ${rows.map((row) => `(${row}, now(), now())`).join(',\n  ')};
INSERT INTO floor_sync_runs (host_id, id, dry_run, received, created, updated, unchanged, reactivated, deactivated, started_at,
  applied_at, duration_ms, actions)
VALUES (${hostId}, 'syn_${runId}', false, ${products.length}, ${products.length}, 0, 0, 0, 0, now(), now(), 1, ${quote(actions)});
COMMIT`;
}

const FLOOR_TABLE = `CREATE TABLE floor_products (LIKE products INCLUDING ALL);
  CREATE TABLE floor_sync_runs (LIKE sync_runs INCLUDING ALL)`;
const COPY_FLOOR = `COPY floor_products (${STORED_COLUMNS}, created_at, updated_at, deactivated_at)`;
const SELECT_FLOOR = 'SELECT external_id, id, status, fingerprint FROM floor_products WHERE host_id = $1';

/** COPY and SELECT against the store's own kind of database: a table shaped like products, same rows. */
async function openFloorDatabase(store, databaseUrl, dataDir) {
  if (store === 'postgres') {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(FLOOR_TABLE);
    const { rows } = await client.query('SHOW server_version');
    // As many connections as the benchmark has clients: each runs one sync's transaction at a time.
    const pool = new pg.Pool({ connectionString: databaseUrl, max: SIZES.clients });
    return {
      version: `PostgreSQL ${rows[0].server_version}`,
      async copy(text) {
        await client.query('BEGIN');
        await pipeline(Readable.from([text]), client.query(copyStreams.from(`${COPY_FLOOR} FROM STDIN`)));
        await client.query('COMMIT');
      },
      select: (hostId) => client.query(SELECT_FLOOR, [hostId]),
      syncs: (texts) =>
        concurrently(
          texts.map((text) => () => pool.query(text)),
          SIZES.clients,
        ),
      close: async () => {
        await pool.end();
        await client.end();
      },
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({ dataDir: path.join(dataDir, 'floor-pglite') });
  // The same schema as the server's: every migration, in order (later ones add columns and indexes to products).
  for (const file of (await readdir(SCHEMA)).filter((name) => name.endsWith('.sql')).sort()) {
    await db.exec(await readFile(path.join(SCHEMA, file), 'utf8'));
  }
  await db.exec(FLOOR_TABLE);
  const { rows } = await db.query('SHOW server_version');
  return {
    version: `PGlite (PostgreSQL ${rows[0].server_version})`,
    async copy(text) {
      await db.transaction(async (tx) => {
        await tx.query(`${COPY_FLOOR} FROM '/dev/blob'`, [], { blob: new Blob([text]) });
      });
    },
    select: (hostId) => db.query(SELECT_FLOOR, [hostId]),
    // One connection, like the embedded store: the transactions run one after another.
    syncs: (texts) =>
      concurrently(
        texts.map((text) => () => db.exec(text)),
        1,
      ),
    close: () => db.close(),
  };
}

// ---------------------------------------------------------------------------------------------- one store

async function readStatus(pid, field) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

/**
 * `count` confirmed watches, of plans and searches no plan of the benchmark meets (other categories, other ids): every
 * sync notes its changed products for them, and the delivery loop matches those notes and finds nothing to tell.
 */
async function seedWatches(url, count) {
  log(`  ${count} watches`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO watches (id, email, product_id, search, category, facets, match_key, confirmed_at)
       SELECT 'wch_' || lpad(i::text, 26, '0'), 'w' || i || '@example.net',
              CASE WHEN i % 10 < 4 THEN 'prd_' || lpad(i::text, 26, '0') END,
              CASE WHEN i % 10 >= 4 THEN 'bench' END,
              CASE WHEN i % 10 >= 4 THEN 'watched_' || (i % 20) END, '[]'::jsonb,
              CASE WHEN i % 10 < 4 THEN 'product|prd_' || lpad(i::text, 26, '0') ELSE 'watched_' || (i % 20) || '|' END,
              now()
       FROM generate_series(1, $1::int) AS i`,
      [count],
    );
    await client.query('ANALYZE watches');
  } finally {
    await client.end();
  }
}

async function benchStore(store) {
  log(`\n== ${store}`);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `hostdir-bench-${store}-`));
  const database = store === 'postgres' ? await createDatabase() : null;
  // Started side by side: an embedded store's first start (initdb in WebAssembly) takes seconds each.
  const scenarios = ['create', 'unchanged', 'mixed', 'create_50k'].filter(wanted).length;
  const hostCount =
    scenarios * TIMES + (wanted('throughput') ? SIZES.hosts * TIMES : 0) + (wanted('steady') ? SIZES.steadyHosts : 0);
  log(`  onboarding ${hostCount} hosts`);
  const keys = await seedHosts(database?.url ?? null, dataDir, hostCount);
  const take = (count) => keys.splice(0, count);
  const [server, floor, floorDb] = await Promise.all([
    startHostdir(store, database?.url ?? null, dataDir),
    startFloorServer(store, database?.url ?? null),
    openFloorDatabase(store, database?.url ?? null, dataDir),
  ]);
  if (database && WATCHES > 0) await seedWatches(database.url, WATCHES);
  const n = SIZES.products;
  try {
    const products = catalogue(n);
    const payload = body(products);
    const text = payload.toString('utf8');
    const mixedPayload = body(mixedCatalogue(n));
    const bigPayload = body(catalogue(SIZES.big));
    const smallProducts = Array.from({ length: SIZES.hosts }, (_, h) =>
      catalogue(SIZES.hostProducts, h * SIZES.hostProducts),
    );
    const small = smallProducts.map(body);
    const rows = copyText(products, 0);

    const pid = server.child.pid;
    const peaks = [];
    let floorHost = 0;
    const hostsFor = (scenario, count) => (wanted(scenario) ? take(count) : []);
    const createHosts = hostsFor('create', TIMES);
    const unchangedHosts = hostsFor('unchanged', TIMES);
    const mixedHosts = hostsFor('mixed', TIMES);
    const bigHosts = hostsFor('create_50k', TIMES);
    const throughputHosts = Array.from({ length: TIMES }, () => hostsFor('throughput', SIZES.hosts));
    // The steady state: the same hosts every round, each re-sending its unchanged catalogue (sizes cycle through
    // steadySizes), as billing systems do every window; their first sync is made before the first round.
    const steadyHosts = hostsFor('steady', SIZES.steadyHosts);
    const steadyBodies = steadyHosts.map((_, h) =>
      body(catalogue(SIZES.steadySizes[h % SIZES.steadySizes.length], h * 100_000)),
    );
    const steadyProducts = steadyHosts.reduce((sum, _, h) => sum + SIZES.steadySizes[h % SIZES.steadySizes.length], 0);
    const steadySyncs = () => steadyBodies.map((b, h) => () => syncAs(server, steadyHosts[h], b));
    const steadyCpu = [];
    /** [server, database] CPU ms of each round of the throughput scenario, and the database's of its floor */
    const throughputCpu = [];
    const floorDbCpu = [];

    /** name → [prepare(k) (untimed) → context, run(context, k) (timed)] */
    const measurements = {
      floor_http_ms: [() => null, () => expect200(post(`${floor.url}/discard`, payload), 'floor')],
      floor_parse_ms: [() => null, () => JSON.parse(text)],
      floor_copy_ms: [() => rows.replace(/^0\t/gm, `${++floorHost}\t`), (hostRows) => floorDb.copy(hostRows)],
      floor_select_ms: [
        () => floorHost,
        async (hostId) => {
          const { rows: read } = await floorDb.select(hostId);
          if (read.length !== n) throw new Error(`floor select read ${read.length} rows`);
        },
      ],
      floor_throughput_ms: [
        () => null,
        () =>
          concurrently(
            small.map((b) => () => expect200(post(`${floor.url}/parse-tx`, b), 'floor')),
            SIZES.clients,
          ),
      ],
      floor_db_syncs_ms: [
        (k) =>
          smallProducts.map((products, h) =>
            dbSyncText(products, 1_000_000 + k * SIZES.hosts + h, `${k}x${h}x${randomBytes(4).toString('hex')}`),
          ),
        async (texts, k) => {
          const before = store === 'postgres' ? await postgresCpuReading() : null;
          await floorDb.syncs(texts);
          if (k >= SIZES.warmups)
            floorDbCpu.push(before ? postgresCpuBetween(before, await postgresCpuReading()) : NaN);
        },
      ],
      create_ms: [(k) => createHosts[k], (key) => syncAs(server, key, payload)],
      unchanged_ms: [
        async (k) => (await syncAs(server, unchangedHosts[k], payload), unchangedHosts[k]),
        (key) => syncAs(server, key, payload),
      ],
      mixed_ms: [
        async (k) => (await syncAs(server, mixedHosts[k], payload), mixedHosts[k]),
        (key) => syncAs(server, key, mixedPayload),
      ],
      create_50k_ms: [
        async (k) => {
          // Resets VmHWM (Linux), so that after the run it is this run's peak; the samples are the fallback.
          await writeFile(`/proc/${pid}/clear_refs`, '5').catch(() => {});
          return bigHosts[k];
        },
        async (key, k) => {
          let sampled = 0;
          const sampler = setInterval(() => {
            readStatus(pid, 'VmRSS').then(
              (mb) => (sampled = Math.max(sampled, mb)),
              () => {},
            );
          }, 5);
          try {
            await syncAs(server, key, bigPayload);
          } finally {
            clearInterval(sampler);
          }
          const hwm = await readStatus(pid, 'VmHWM');
          if (k >= SIZES.warmups) peaks.push(Math.max(Number.isNaN(hwm) ? 0 : hwm, sampled));
        },
      ],
      throughput_ms: [
        (k) => throughputHosts[k],
        async (hostKeys, k) => {
          const databaseCpu = () => (store === 'postgres' ? postgresCpuReading() : null);
          const before = await Promise.all([cpuMs(pid), databaseCpu()]);
          await concurrently(
            small.map((b, h) => () => syncAs(server, hostKeys[h], b)),
            SIZES.clients,
          );
          const after = await Promise.all([cpuMs(pid), databaseCpu()]);
          if (k >= SIZES.warmups) {
            throughputCpu.push([
              after[0] - before[0],
              before[1] && after[1] ? postgresCpuBetween(before[1], after[1]) : NaN,
            ]);
          }
        },
      ],
      steady_ms: [
        async (k) => {
          if (k === 0) await concurrently(steadySyncs(), STEADY_CLIENTS);
          return cpuMs(pid);
        },
        async (cpuBefore, k) => {
          await concurrently(steadySyncs(), STEADY_CLIENTS);
          if (k >= SIZES.warmups) steadyCpu.push((await cpuMs(pid)) - cpuBefore);
        },
      ],
    };
    const active = Object.keys(measurements).filter(
      (name) => name.startsWith('floor_') || wanted(name.replace(/_ms$/, '')),
    );

    // Rounds, each measuring everything once: a machine whose load changes during the run then weighs on the
    // floors and the scenarios alike, which keeps their ratios meaningful.
    const times = Object.fromEntries(active.map((name) => [name, []]));
    for (let k = 0; k < TIMES; k++) {
      const round = [];
      for (const name of active) {
        const [prepare, run] = measurements[name];
        const context = await prepare(k);
        const start = performance.now();
        await run(context, k);
        const elapsed = performance.now() - start;
        if (k >= SIZES.warmups) times[name].push(elapsed);
        round.push(`${name.replace(/_ms$/, '')} ${elapsed.toFixed(0)}`);
      }
      log(`  round ${k + 1}/${TIMES}${k < SIZES.warmups ? ' (warm-up)' : ''}, ms: ${round.join(', ')}`);
    }
    const figures = {};
    const medianOf = (name) => (times[name]?.length ? median(times[name]) : NaN);
    for (const name of ['floor_http_ms', 'floor_parse_ms', 'floor_copy_ms', 'floor_select_ms'])
      figures[name] = medianOf(name);
    figures.floor_throughput_per_s = (SIZES.hosts / medianOf('floor_throughput_ms')) * 1000;
    figures.floor_db_syncs_per_s = (SIZES.hosts / medianOf('floor_db_syncs_ms')) * 1000;
    for (const name of ['create_ms', 'unchanged_ms', 'mixed_ms', 'create_50k_ms']) figures[name] = medianOf(name);
    figures.peak_rss_mb_50k = peaks.length ? median(peaks) : NaN;
    figures.body_mb_50k = bigPayload.length / 1024 / 1024;
    figures.throughput_syncs_per_s = (SIZES.hosts / medianOf('throughput_ms')) * 1000;
    // Where a sync's time goes when many run at once: CPU of the server process and of the database, per sync.
    figures.floor_db_cpu_ms_per_sync = floorDbCpu.length ? median(floorDbCpu) / SIZES.hosts : NaN;
    figures.throughput_server_cpu_ms_per_sync = throughputCpu.length
      ? median(throughputCpu.map(([server]) => server)) / SIZES.hosts
      : NaN;
    figures.throughput_db_cpu_ms_per_sync = throughputCpu.length
      ? median(throughputCpu.map(([, db]) => db)) / SIZES.hosts
      : NaN;
    figures.steady_syncs_per_s = (steadyHosts.length / medianOf('steady_ms')) * 1000;
    figures.steady_cpu_ms_per_1k_products = steadyCpu.length ? (median(steadyCpu) / steadyProducts) * 1000 : NaN;

    const round = (value) => (value >= 100 ? Math.round(value * 10) / 10 : Number(value.toPrecision(3)));
    const result = Object.fromEntries(Object.entries(figures).map(([key, value]) => [key, round(value)]));
    return {
      store,
      ...result,
      machine: {
        cores: os.cpus().length,
        cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
        memory_gb: Math.round(os.totalmem() / 1024 ** 3),
        node: process.version,
        postgresql: floorDb.version,
      },
    };
  } finally {
    await floorDb.close();
    await stopProcess(floor.child);
    await stopProcess(server.child);
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------- report

function targets(r) {
  const memory = ['peak_rss_mb_50k ≤ 150 + 4 × body_mb_50k', r.peak_rss_mb_50k, 150 + 4 * r.body_mb_50k];
  // PostgreSQL runs inside the embedded server's process, and its memory with it.
  const embeddedMemory = ['peak_rss_mb_50k ≤ 512', r.peak_rss_mb_50k, 512];
  if (r.store === 'embedded') return [embeddedMemory];
  return [
    ['create_ms ≤ 1.5 × (http+parse+copy)', r.create_ms, 1.5 * (r.floor_http_ms + r.floor_parse_ms + r.floor_copy_ms)],
    [
      'unchanged_ms ≤ 2.0 × (http+parse+select)',
      r.unchanged_ms,
      2 * (r.floor_http_ms + r.floor_parse_ms + r.floor_select_ms),
    ],
    ['mixed_ms ≤ 1.5 × create_ms', r.mixed_ms, 1.5 * r.create_ms],
    ['create_50k_ms ≤ 5.5 × create_ms', r.create_50k_ms, 5.5 * r.create_ms],
    memory,
    ['throughput ≥ 0.4 × floor_db_syncs', -r.throughput_syncs_per_s, -0.4 * r.floor_db_syncs_per_s],
  ];
}

/** Each target of a run as [store, target, figure, limit, met], figures as the table prints them. */
function targetRows(results) {
  const rows = [];
  for (const r of results) {
    for (const [label, value, limit] of targets(r)) {
      const digits = Math.abs(limit) < 10 ? 2 : 1;
      rows.push([
        r.store,
        label,
        Math.abs(value).toFixed(digits),
        Math.abs(limit).toFixed(digits),
        value <= limit ? 'met' : 'missed',
      ]);
    }
  }
  return rows;
}

/** The run into docs/performance.md: every figure by store, then every target. */
async function writeRun(results) {
  const keys = Object.keys(results[0]).filter((key) => key !== 'store' && key !== 'machine');
  await writeLastRun('run', {
    command: `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    database: results.map((r) => r.machine.postgresql).join(', '),
    tables: [
      // A figure the store does not have (PostgreSQL's CPU, for the embedded store) is a dash, as `null` in the JSON.
      [
        ['figure', ...results.map((r) => r.store)],
        ...keys.map((key) => [key, ...results.map((r) => (Number.isNaN(r[key]) ? '—' : String(r[key])))]),
      ],
      [['store', 'target', 'figure', 'limit', ''], ...targetRows(results)],
    ],
  });
}

function printTable(results) {
  const keys = Object.keys(results[0]).filter((key) => key !== 'store' && key !== 'machine');
  const header = ['figure', ...results.map((r) => r.store)];
  const lines = [header, ...keys.map((key) => [key, ...results.map((r) => String(r[key]))])];
  const widths = header.map((_, c) => Math.max(...lines.map((line) => line[c].length)));
  const out = [];
  for (const line of lines)
    out.push(line.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
  if (!SMOKE) {
    let store = null;
    for (const [of, label, value, limit, met] of targetRows(results)) {
      if (of !== store) out.push('', `targets (${(store = of)}):`);
      out.push(`  ${met === 'met' ? 'met ' : 'MISS'}  ${label.padEnd(42)} ${value} vs ${limit}`);
    }
  }
  const m = results[0].machine;
  out.push(
    '',
    `machine: ${m.cores} cores (${m.cpu}), ${m.memory_gb} GB, Node ${m.node}; ${results.map((r) => r.machine.postgresql).join(', ')}`,
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

const results = [];
for (const store of STORES) results.push(await benchStore(store));
printTable(results);
if (WRITE) await writeRun(results);
if (JSON_OUTPUT) for (const r of results) process.stdout.write(`${JSON.stringify(r)}\n`);
// The watches' matching, on PostgreSQL (bench/watches.mjs), with the same --smoke, --write and --json.
if (STORES.includes('postgres') && ONLY === null) {
  const passed = ['--smoke', '--write', '--json'].filter((flag) => process.argv.includes(flag));
  const watches = spawn(process.execPath, [path.join(ROOT, 'bench/watches.mjs'), ...passed], { stdio: 'inherit' });
  const code = await new Promise((resolve) => watches.on('exit', resolve));
  if (code !== 0) process.exit(code ?? 1);
}
