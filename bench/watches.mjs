#!/usr/bin/env node
// The watches' matching on PostgreSQL: a sync's statement of 10 000 changed (or created) products against 100 000
// live watches. Generates the watches and a host's products with generate_series in a database of its own, migrated
// by this build, then times, in transactions rolled back:
// - the statement a sync sends (an UPDATE lowering prices, an INSERT of new products) with the products' watch
//   triggers on and off: what noting the changed products adds to the sync, and the notes written;
// - the delivery loop's matching of those notes (match_watch_changes, batches of MATCH_BATCH until none is left):
//   its whole time, its longest batch (one statement, under STATEMENT_TIMEOUT_MS) and the events it writes.
// See docs/performance.md, "Watches".
//
//   node bench/watches.mjs            10 000 products, 100 000 watches (run by `npm run bench`)
//   node bench/watches.mjs --smoke    1 000 products, 10 000 watches, one round: proves the benchmark still works
//   node bench/watches.mjs --write    … and writes the run's table into docs/performance.md
//
// PostgreSQL: the server of TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432; the database
// hostdir_bench_watches (hostdir_bench_watches_smoke with --smoke) is made afresh and dropped at the end.
import { databaseUrlOf, withClient, writeLastRun } from './support.mjs';
import { migrate } from '../dist/store/migrate.js';
import { PostgresDatabase } from '../dist/store/postgres.js';
import { MATCH_BATCH } from '../dist/watch-delivery.js';

const SMOKE = process.argv.includes('--smoke');
const WRITE = process.argv.includes('--write');
const JSON_OUTPUT = process.argv.includes('--json');
const PRODUCTS = SMOKE ? 1_000 : 10_000;
const WATCHES = SMOKE ? 10_000 : 100_000;
const ROUNDS = SMOKE ? 1 : 3;
/** What noting 10 000 changed products for the watches may add to their sync, whatever the number of watches. */
const TARGET_MS = 500;
const SERVER_URL = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
// The smoke run (which the test suite runs) has a database of its own, so that it never meets a full run's.
const DATABASE = SMOKE ? 'hostdir_bench_watches_smoke' : 'hostdir_bench_watches';
const databaseUrl = databaseUrlOf(SERVER_URL, DATABASE);
const log = (message) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);

/** The directory's segments: 20 categories, 30 countries; products and watches spread over all of them. */
const CATEGORIES = Array.from({ length: 20 }, (_, k) => `category_${k}`);
const COUNTRIES = [
  'DE',
  'NL',
  'FR',
  'GB',
  'US',
  'FI',
  'PL',
  'ES',
  'IT',
  'SE',
  'CA',
  'AU',
  'JP',
  'SG',
  'BR',
  'IN',
  'ZA',
  'AT',
  'CH',
  'BE',
  'DK',
  'NO',
  'IE',
  'PT',
  'CZ',
  'RO',
  'HK',
  'KR',
  'MX',
  'AR',
];
const array = (values) => `(ARRAY[${values.map((v) => `'${v}'`).join(', ')}])`;

async function generate(client) {
  const {
    rows: [{ id: hostId }],
  } = await client.query(
    `INSERT INTO hosts (slug, name, default_currency, status, confirmed_at)
     VALUES ('watched', 'Watched Hosting', 'EUR', 'active', now()) RETURNING id`,
  );
  // A host's catalogue over every segment: a category, two countries, RAM 1–128 GB, 2–100 EUR a month.
  await client.query(
    `INSERT INTO products (host_id, external_id, id, status, name, category, price, currency, description, specs,
       features, datacenter_locations, fingerprint, created_at, updated_at, spec_values, facets, search_extra,
       derived_version, monthly_equivalent, base_monthly_price)
     SELECT $1, 'p' || i, 'prd_' || lpad(i::text, 26, '0'), 'active', 'Plan ' || i, ${array(CATEGORIES)}[1 + i % 20],
       price, 'EUR', 'A fast server', '{}'::json, '[]'::jsonb, '[]'::jsonb, md5(i::text), now(), now(),
       jsonb_build_object('ram_gb', 1 << (i % 8), 'cpu_cores', 1 + i % 16),
       jsonb_build_array('c:' || ${array(COUNTRIES)}[1 + i % 30], 'c:' || ${array(COUNTRIES)}[1 + (i / 30) % 30], 'f:nvme'),
       '', 0, price, price
     FROM (SELECT i, round((2 + (hashint4(i)::bigint & 2147483647) % 9800 / 100.0)::numeric, 2) AS price
           FROM generate_series(1, $2::int) AS i) g`,
    [hostId, PRODUCTS],
  );
  // Visitors' watches: 40 % of one plan (of a directory of a million, so 1 % of them of this host's), the others of a
  // search: a category, most a country and a price limit (5–40 EUR: visitors watch for cheap plans), half a RAM
  // minimum, a third one provider (of a thousand: this host in one of them), a few words.
  await client.query(
    `INSERT INTO watches (id, email, product_id, search, category, host_id, facets, words, specs, max_base_price,
                          match_key, confirmed_at)
     SELECT 'wch_' || lpad(i::text, 26, '0'), 'w' || i || '@example.net', product_id,
            CASE WHEN product_id IS NULL THEN 'bench' END, category,
            CASE WHEN product_id IS NULL AND r % 3 = 0 THEN CASE WHEN r % 1000 = 0 THEN $2::bigint ELSE -1 END END,
            facets, words, specs, max_price,
            CASE WHEN product_id IS NULL THEN category || '|' || coalesce(facets ->> 0, '') ELSE 'product|' || product_id END,
            now()
     FROM (SELECT i, r,
             CASE WHEN r % 10 < 4 THEN 'prd_' || lpad((1 + (r / 10) % 1000000)::text, 26, '0') END AS product_id,
             CASE WHEN r % 10 >= 4 THEN ${array(CATEGORIES)}[1 + (r / 10) % 20] END AS category,
             CASE WHEN r % 10 >= 4 AND r % 100 < 90
                  THEN jsonb_build_array('c:' || ${array(COUNTRIES)}[1 + (r / 200) % 30]) ELSE '[]'::jsonb END AS facets,
             CASE WHEN r % 10 >= 4 AND r % 50 = 0 THEN 'fast:*'::tsquery END AS words,
             CASE WHEN r % 10 >= 4 AND r % 2 = 0 THEN ('$.ram_gb >= ' || (1 << ((r / 6000) % 8)::int))::jsonpath END AS specs,
             CASE WHEN r % 10 >= 4 AND r % 100 < 80 THEN (5 + (r / 48000) % 36)::numeric END AS max_price
           FROM (SELECT i, (hashint4(i + 1)::bigint & 2147483647) AS r FROM generate_series(1, $1::int) AS i) g) w`,
    [WATCHES, hostId],
  );
  await client.query('ANALYZE');
  return hostId;
}

/** The median time of `statement` in a transaction rolled back, with the watch triggers on or off, and its notes. */
async function timed(client, statement, params, triggers) {
  const times = [];
  let notes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    await client.query('BEGIN');
    if (!triggers) await client.query('ALTER TABLE products DISABLE TRIGGER USER');
    const started = process.hrtime.bigint();
    await client.query(statement, params);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    notes = Number((await client.query('SELECT count(*) AS n FROM watch_changes')).rows[0].n);
    await client.query('ROLLBACK');
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], notes };
}

/** The delivery loop's matching of the notes `statement` leaves, batch after batch, in a transaction rolled back. */
async function matched(client, statement, params) {
  await client.query('BEGIN');
  try {
    await client.query(statement, params);
    let total = 0;
    let longest = 0;
    let batches = 0;
    for (;;) {
      const started = process.hrtime.bigint();
      const {
        rows: [{ claimed }],
      } = await client.query('SELECT match_watch_changes($1) AS claimed', [MATCH_BATCH]);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (claimed === 0) break;
      total += ms;
      longest = Math.max(longest, ms);
      batches++;
      if (claimed < MATCH_BATCH) break;
    }
    const events = Number((await client.query('SELECT count(*) AS n FROM watch_events')).rows[0].n);
    return { ms: total, longest, batches, events };
  } finally {
    await client.query('ROLLBACK');
  }
}

async function main() {
  await withClient(SERVER_URL.toString(), async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
    await client.query(`CREATE DATABASE ${DATABASE}`);
  });
  try {
    const db = new PostgresDatabase({ url: databaseUrl, poolSize: 1, statementTimeoutMs: 600_000 });
    await migrate(db);
    await db.close();
    const figures = await withClient(databaseUrl, async (client) => {
      log(`generating ${PRODUCTS} products and ${WATCHES} watches`);
      const hostId = await generate(client);
      // What a sync sends for changed products: every price 10 % lower, so every content's fingerprint changes.
      const update = `UPDATE products SET price = round(price * 0.9, 2), base_monthly_price = round(price * 0.9, 2),
                        monthly_equivalent = round(price * 0.9, 2), fingerprint = md5(fingerprint)
                      WHERE host_id = $1`;
      // A sync's usual changes: one product in twenty cheaper, the others with a new description.
      const edits = `UPDATE products SET description = description || ' (updated)', fingerprint = md5(fingerprint),
                       price = CASE WHEN substr(external_id, 2)::int % 20 = 0 THEN round(price * 0.9, 2) ELSE price END,
                       base_monthly_price = CASE WHEN substr(external_id, 2)::int % 20 = 0
                         THEN round(price * 0.9, 2) ELSE base_monthly_price END
                     WHERE host_id = $1`;
      const insert = `INSERT INTO products (host_id, external_id, id, status, name, category, price, currency, description,
                        specs, features, datacenter_locations, fingerprint, created_at, updated_at, spec_values, facets,
                        search_extra, derived_version, monthly_equivalent, base_monthly_price)
                      SELECT host_id, 'n' || external_id, 'prd_' || lpad((substr(id, 5)::bigint + 100000000)::text, 26, '0'), status, name, category, price,
                        currency, description, specs, features, datacenter_locations, fingerprint, now(), now(),
                        spec_values, facets, search_extra, derived_version, monthly_equivalent, base_monthly_price
                      FROM products WHERE host_id = $1`;
      const result = {};
      for (const [name, statement] of [
        ['changed (5 % cheaper, 95 % reworded)', edits],
        ['changed (all cheaper)', update],
        ['created', insert],
      ]) {
        log(`timing ${PRODUCTS} ${name} products`);
        const without = await timed(client, statement, [hostId], false);
        const withWatches = await timed(client, statement, [hostId], true);
        log(`matching them with the watches`);
        const matching = await matched(client, statement, [hostId]);
        result[name] = {
          without: without.ms,
          with: withWatches.ms,
          notes: withWatches.notes,
          matching: matching.ms,
          longestBatch: matching.longest,
          batches: matching.batches,
          events: matching.events,
        };
      }
      return result;
    });
    const rows = Object.entries(figures).map(([name, f]) => [
      `${PRODUCTS} ${name} products × ${WATCHES} watches`,
      f.without.toFixed(0),
      f.with.toFixed(0),
      (f.with - f.without).toFixed(0),
      SMOKE ? '—' : `${TARGET_MS}`,
      String(f.notes),
      f.matching.toFixed(0),
      `${f.batches} × ${MATCH_BATCH}, longest ${f.longestBatch.toFixed(0)}`,
      String(f.events),
    ]);
    const header = [
      'statement',
      'sync without watches ms',
      'sync with watches ms',
      'added to the sync ms',
      'target ms',
      'notes',
      'loop matching ms',
      'batches (longest ms)',
      'events',
    ];
    process.stdout.write(`${[header, ...rows].map((row) => row.join('  ')).join('\n')}\n`);
    if (JSON_OUTPUT) process.stdout.write(`${JSON.stringify({ products: PRODUCTS, watches: WATCHES, ...figures })}\n`);
    if (WRITE && !SMOKE) {
      const {
        rows: [{ server_version: version }],
      } = await withClient(databaseUrl, (client) => client.query('SHOW server_version'));
      await writeLastRun('watches', {
        command: `node bench/watches.mjs ${process.argv.slice(2).join(' ')}`.trim(),
        database: `PostgreSQL ${version}`,
        tables: [[header, ...rows]],
      });
    }
  } finally {
    if (!process.env.BENCH_KEEP)
      await withClient(SERVER_URL.toString(), (client) => client.query(`DROP DATABASE IF EXISTS ${DATABASE}`));
  }
}

await main();
