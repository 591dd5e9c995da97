// The schema and the queries as Citus needs them to spread the directory over several nodes by host
// (docs/operations.md, "Beyond one PostgreSQL"), checked on a server of the test's own:
// - every table is classified: distributed by host, a reference table (copied to every node), or local;
// - a distributed table has host_id first in its primary key, and PostgreSQL accepts it hash-partitioned by host_id
//   (which, like Citus, refuses a unique key without host_id); no foreign key points from a reference or local
//   table to a distributed one;
// - with the distributed tables so partitioned, every query the server runs outside the public directory's reads
//   (syncs of every kind, retries, refusals, the provider's reads, the admin API) reads the partitions of one host
//   only, as auto_explain's plans show: a query that joins rows of two hosts would read several.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/migrate.js';
import { PostgresDatabase } from '../../src/store/postgres.js';
import { admin, call, onboard, product, sync } from '../support/api.js';
import { startCluster, type Cluster } from '../support/postgres-cluster.js';
import { startServer, type TestServer } from '../support/server.js';

/** Tables that grow with the directory: distributed by host_id, colocated. */
const DISTRIBUTED = [
  'audit_events',
  'idempotency_keys',
  'price_history',
  'products',
  'stock_changes',
  'sync_receipt_pieces',
  'sync_receipts',
  'sync_refusal_reports',
  'sync_refusals',
  'sync_run_action_pieces',
  'sync_runs',
];
/**
 * Small, copied to every node: read on every request, and server_instances (the processes' heartbeats) inside the
 * Idempotency-Key claim, which runs on the node of the host's keys.
 */
const REFERENCE = [
  'api_keys',
  'categories',
  'exchange_rates',
  'exchange_rates_version',
  'hosts',
  'server_instances',
  // providers' accounts: a few rows per provider, looked up by address, domain or digest whatever the host
  'host_domains',
  'host_people',
  'person_links',
  'person_sessions',
  // visitors' watches, the products' changes noted for them and their undelivered events: not a host's; the products'
  // triggers write the notes on the node of the host's shard, the delivery loop matches them with the watches
  'watch_changes',
  'watch_events',
  'watches',
];
/** Kept on the coordinator only: the migrations' own bookkeeping. */
const LOCAL = ['schema_migrations'];
/** Partitions per distributed table: hosts spread over them as Citus spreads them over shards. */
const PARTITIONS = 8;

/**
 * Statements allowed to read several hosts, each with the reason and what becomes of it under Citus (docs/operations.md
 * lists the same).
 */
const MULTI_HOST: Array<{ sql: RegExp; why: string }> = [
  {
    sql: /DELETE FROM idempotency_keys\s+WHERE \(host_id, key\) IN \(\s*SELECT host_id, key FROM idempotency_keys WHERE expires_at <= clock_timestamp\(\) LIMIT/,
    why: 'forgets expired Idempotency-Keys of every host, a batch at a time; under Citus it runs on each shard (its LIMIT cannot be pushed down)',
  },
  {
    sql: /^SELECT DISTINCT host_id::text AS id FROM products WHERE derived_version <> \$1 ORDER BY 1$/,
    why: 'finds, once per start, the hosts with products derived by another version; under Citus every node answers for its shards',
  },
];

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

interface LoggedPlan {
  application: string;
  query: string;
  plan: PlanNode;
}

/** auto_explain's plans in the server's log, each with the application that ran it (log_line_prefix '@@%a@@'). */
function plansOf(log: string): LoggedPlan[] {
  const plans: LoggedPlan[] = [];
  for (const entry of log.split(/^@@/m)) {
    const match = /^(.*?)@@LOG:\s+duration: [\d.]+ ms\s+plan:\s*\n([\s\S]*)$/.exec(entry);
    if (!match) continue;
    const explained = JSON.parse(match[2]!.trim()) as { 'Query Text': string; Plan: PlanNode };
    plans.push({ application: match[1]!, query: explained['Query Text'], plan: explained.Plan });
  }
  return plans;
}

/** The partitions of distributed tables a plan read, as "table/remainder". */
function partitionsRead(node: PlanNode, found = new Set<string>()): Set<string> {
  const name = node['Relation Name'];
  const partition = name ? /^(.*)_p(\d+)$/.exec(name) : null;
  if (partition && DISTRIBUTED.includes(partition[1]!) && (node['Actual Loops'] ?? 0) > 0)
    found.add(`${partition[1]}/${partition[2]}`);
  for (const child of node.Plans ?? []) partitionsRead(child, found);
  return found;
}

/** Statements of `application` that read the partitions of more than one host. */
function multiHost(plans: LoggedPlan[], application: string): Array<{ query: string; partitions: string[] }> {
  return plans
    .filter((logged) => logged.application === application)
    .map((logged) => ({ query: logged.query, partitions: [...partitionsRead(logged.plan)] }))
    .filter(({ partitions }) => new Set(partitions.map((p) => p.split('/')[1])).size > 1);
}

/** Those of them that are not allowed to. */
function crossHost(plans: LoggedPlan[], application: string): Array<{ query: string; partitions: string[] }> {
  return multiHost(plans, application).filter(({ query }) => !MULTI_HOST.some((allowed) => allowed.sql.test(query)));
}

describe('the schema and queries Citus needs', () => {
  let cluster: Cluster & { destroy(): Promise<void> };
  let server: TestServer;
  let databaseUrl: string;

  const sql = async <R = Record<string, unknown>>(text: string, params?: unknown[]) => {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: 'hostdir-test' });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as R[];
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    cluster = await startCluster([
      '-c',
      'session_preload_libraries=auto_explain',
      '-c',
      'auto_explain.log_min_duration=0',
      '-c',
      'auto_explain.log_analyze=on',
      '-c',
      'auto_explain.log_timing=off',
      '-c',
      'auto_explain.log_format=json',
      '-c',
      'auto_explain.log_nested_statements=on',
      '-c',
      'log_line_prefix=@@%a@@',
    ]);
    await cluster.sql('CREATE DATABASE hostdir');
    databaseUrl = cluster.url('hostdir');
    const db = new PostgresDatabase({
      url: databaseUrl,
      poolSize: 1,
      statementTimeoutMs: 60_000,
      applicationName: 'hostdir-test',
    });
    try {
      await migrate(db);
    } finally {
      await db.close();
    }
  });

  afterAll(async () => {
    await server?.stop();
    await cluster?.destroy();
  });

  it('classifies every table, and keys each distributed one by host first', async () => {
    const tables = (
      await sql<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)
    ).map((t) => t.name);
    expect(tables, 'a new table must be classified here and in docs/operations.md').toEqual(
      [...DISTRIBUTED, ...REFERENCE, ...LOCAL].sort(),
    );
    const keys = await sql<{ table: string; first: string }>(
      `SELECT c.conrelid::regclass::text AS table, a.attname AS first
       FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
       WHERE c.contype = 'p'`,
    );
    for (const table of DISTRIBUTED)
      expect(keys.find((key) => key.table === table)?.first, `${table}'s primary key`).toBe('host_id');
    const references = await sql<{ from: string; to: string; columns: string[] }>(
      `SELECT c.conrelid::regclass::text AS from, c.confrelid::regclass::text AS to,
              array(SELECT attname FROM pg_attribute WHERE attrelid = c.conrelid AND attnum = ANY (c.conkey))::text[] AS columns
       FROM pg_constraint c WHERE c.contype = 'f'`,
    );
    for (const reference of references) {
      if (!DISTRIBUTED.includes(reference.to)) continue;
      expect(DISTRIBUTED, `${reference.from} → ${reference.to}: only a distributed table may refer to one`).toContain(
        reference.from,
      );
      expect(reference.columns, `${reference.from} → ${reference.to} must go through host_id`).toContain('host_id');
    }
  });

  it('takes the distributed tables hash-partitioned by host, unique keys and all', async () => {
    for (const table of DISTRIBUTED) {
      // Foreign keys from a distributed table to a reference one are allowed; recreated tables simply go without.
      await sql(`ALTER TABLE ${table} RENAME TO ${table}_plain`);
      await sql(`CREATE TABLE ${table} (LIKE ${table}_plain INCLUDING ALL) PARTITION BY HASH (host_id)`);
      for (let k = 0; k < PARTITIONS; k++) {
        await sql(
          `CREATE TABLE ${table}_p${k} PARTITION OF ${table} FOR VALUES WITH (MODULUS ${PARTITIONS}, REMAINDER ${k})`,
        );
      }
      // A freshly migrated database: nothing to move over.
      expect((await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}_plain`))[0]!.n).toBe(0);
      await sql(`DROP TABLE ${table}_plain CASCADE`);
    }
    const partitioned = await sql<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relkind = 'p' ORDER BY 1`,
    );
    expect(partitioned.map((t) => t.name)).toEqual(DISTRIBUTED);
  });

  it('runs every query outside the directory’s reads on the rows of one host', { timeout: 120_000 }, async () => {
    server = await startServer('postgres', {
      databaseUrl,
      env: { SYNC_MAX_PER_WINDOW: '3' },
    });
    // The operator's side.
    const hosts = [];
    for (let k = 0; k < 6; k++) hosts.push(await onboard(server, `Spread Hosting ${k}`));
    expect((await admin(server, 'GET', '/hosts')).status).toBe(200);
    expect((await admin(server, 'GET', `/hosts/${hosts[0]!.slug}`)).status).toBe(200);
    const extraKey = await admin(server, 'POST', `/hosts/${hosts[1]!.slug}/keys`);
    expect(extraKey.status).toBe(201);
    expect((await admin(server, 'GET', `/hosts/${hosts[1]!.slug}/keys`)).status).toBe(200);
    expect((await admin(server, 'POST', `/keys/${extraKey.body.api_key.id}/revoke`)).status).toBe(200);
    expect((await admin(server, 'POST', '/categories', { slug: 'spread_test', label: 'Spread test' })).status).toBe(
      201,
    );
    expect((await admin(server, 'POST', `/hosts/${hosts[5]!.slug}/suspend`)).status).toBe(200);
    expect((await admin(server, 'POST', `/hosts/${hosts[5]!.slug}/activate`)).status).toBe(200);

    // Every kind of sync, on several hosts: small (one statement), large (COPY; changes through a temporary table),
    // unchanged (receipts), mixed, dry runs, Idempotency-Key replays and reuse, refusals, the window's 429.
    const large = (variant: number) => Array.from({ length: 400 }, (_, i) => product(`l-${i}`, { price: i + variant }));
    for (const [k, host] of hosts.entries()) {
      expect((await sync(server, host.key, k % 2 ? large(1) : [product('a'), product('b')])).status).toBe(200);
    }
    const [first, second, third] = hosts as [(typeof hosts)[0], (typeof hosts)[0], (typeof hosts)[0]];
    expect((await sync(server, second.key, large(1))).body.summary.unchanged).toBe(400);
    expect((await sync(server, second.key, large(2).slice(0, 300))).body.summary).toMatchObject({
      updated: 300,
      deactivated: 100,
    });
    expect((await sync(server, first.key, [product('a')], '?dry_run=true')).status).toBe(200);
    // Past 1 024 products, the run's actions go in pieces.
    const many = hosts[4]!;
    expect(
      (
        await sync(
          server,
          many.key,
          Array.from({ length: 1100 }, (_, i) => product(`m-${i}`)),
        )
      ).body.summary.created,
    ).toBe(1100);
    const keyed = (json: unknown) =>
      call(server, 'POST', '/api/v1/sync/products', {
        token: third.key,
        json,
        headers: { 'idempotency-key': 'spread-1' },
      });
    expect((await keyed({ products: [product('k')] })).status).toBe(200);
    expect((await keyed({ products: [product('k')] })).headers.get('idempotent-replayed')).toBe('true');
    expect((await keyed({ products: [product('other')] })).status).toBe(422);
    expect((await sync(server, first.key, [{ name: 'no category', external_id: 'x' }])).status).toBe(422);
    // SYNC_MAX_PER_WINDOW is 3: two more, then the window is full.
    for (const name of ['c', 'd']) expect((await sync(server, first.key, [product(name)])).status).toBe(200);
    expect((await sync(server, first.key, [product('e')])).status).toBe(429);

    // The provider's own reads.
    for (const host of [first, second, many]) {
      expect((await call(server, 'GET', '/api/v1/products?status=all&limit=1000', { token: host.key })).status).toBe(
        200,
      );
      const runs = await call(server, 'GET', '/api/v1/sync/runs', { token: host.key });
      const run = await call(server, 'GET', `/api/v1/sync/runs/${runs.body.runs[0].sync_id}`, { token: host.key });
      expect(run.status).toBe(200);
      expect(run.body.products).toHaveLength(runs.body.runs[0].summary.received);
    }

    // The operator's reads of a host's listing and history.
    expect((await admin(server, 'GET', `/hosts/${second.slug}/products?status=all`)).status).toBe(200);
    expect((await admin(server, 'GET', `/hosts/${second.slug}/syncs`)).status).toBe(200);
    expect((await admin(server, 'GET', '/categories')).status).toBe(200);

    // A heartbeat or two.
    await new Promise((resolve) => setTimeout(resolve, 2_500));

    // A query that joins two hosts' rows, run the same way: the check sees it.
    const probe = new pg.Client({ connectionString: databaseUrl, application_name: 'hostdir-probe' });
    await probe.connect();
    await probe.query('SELECT count(*) FROM products p JOIN sync_runs r ON r.id = p.id');
    await probe.end();

    const plans = plansOf(await cluster.log());
    const ours = plans.filter((logged) => logged.application === 'hostdir');
    // The check has something to look at: plans of the server that read distributed tables.
    expect(ours.filter((logged) => partitionsRead(logged.plan).size > 0).length).toBeGreaterThan(50);
    expect(crossHost(plans, 'hostdir-probe')).toHaveLength(1);
    expect(crossHost(plans, 'hostdir')).toEqual([]);
    // Each allowed exception was met (an exception no query needs any more goes, here and in docs/operations.md).
    const seen = multiHost(plans, 'hostdir');
    for (const allowed of MULTI_HOST)
      expect(
        seen.some(({ query }) => allowed.sql.test(query)),
        allowed.why,
      ).toBe(true);
  });
});
