// Starts the real hostdir server (node dist/main.js) on a fresh store, for end-to-end tests over HTTP; or the same
// server in the test's own process, when a test needs a value the environment does not set (startInProcessServer).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { describe, inject } from 'vitest';
import { applyDatabaseSettings } from '../../bench/support.mjs';
import type { Config } from '../../src/config.js';
import { loadDocument } from './openapi-check.js';

export type StoreKind = 'embedded' | 'postgres';

/**
 * The stores this run tests: both, unless HOSTDIR_TEST_STORES names fewer (`npm test` runs with `embedded`, so that
 * it needs nothing but Node). A store left out is not skipped but never collected: suites over STORES hold only the
 * tests of the stores named, and suites only PostgreSQL can run are declared with describeOnPostgres.
 */
export const STORES: StoreKind[] = storesToTest(process.env.HOSTDIR_TEST_STORES);

function storesToTest(named: string | undefined): StoreKind[] {
  if (named === undefined || named.trim() === '') return ['embedded', 'postgres'];
  const stores = named.split(',').map((store) => store.trim());
  const unknown = stores.filter((store) => store !== 'embedded' && store !== 'postgres');
  if (unknown.length > 0)
    throw new Error(`HOSTDIR_TEST_STORES names no store "${unknown.join('", "')}" (embedded, postgres)`);
  return (['embedded', 'postgres'] as const).filter((store) => stores.includes(store));
}

/** A suite that needs PostgreSQL: declared when the run tests that store, absent (never skipped) otherwise. */
export function describeOnPostgres(name: string, suite: () => void): void {
  if (STORES.includes('postgres')) describe(name, suite);
}

/** Refuses, with what to do, a suite that reaches for PostgreSQL in a run that leaves it out. */
function expectPostgresInRun(): void {
  if (STORES.includes('postgres')) return;
  throw new Error(
    `this run leaves PostgreSQL out (HOSTDIR_TEST_STORES=${process.env.HOSTDIR_TEST_STORES}, as \`npm test\` runs): a ` +
      'suite that needs it runs over STORES, is declared with describeOnPostgres, or is listed among the external suites ' +
      'of vitest.config.ts',
  );
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN = path.join(ROOT, 'dist/main.js');
export const CLI = path.join(ROOT, 'dist/cli/main.js');

/** The PostgreSQL server the tests use; tests fail (never skip) when it cannot be reached. */
export const ADMIN_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function databaseUrlFor(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A fresh, empty database on the test PostgreSQL server, with the settings deploy/postgresql/hostdir.conf gives
 * hostdir's (so that the plans the tests check are the deployment's); drop() removes it.
 */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  expectPostgresInRun();
  const name = `hostdir_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect().catch((error: Error) => {
    throw new Error(`PostgreSQL at ${ADMIN_DATABASE_URL} is not reachable (${error.message}); start it, tests need it`);
  });
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  await applyDatabaseSettings(databaseUrlFor(name));
  return { url: databaseUrlFor(name), drop: () => dropDatabase(name) };
}

/** Drops a database of the test PostgreSQL server, connections and all. */
export async function dropDatabase(name: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** A copy of the run's migrated embedded store (embedded-template.ts), as `dataDir`/pglite, where the server keeps it. */
export async function copyEmbeddedTemplate(dataDir: string): Promise<string> {
  const target = path.join(dataDir, 'pglite');
  await cp(inject('embeddedTemplate'), target, { recursive: true });
  return target;
}

/** A hostdir server a test talks to over HTTP, on a store of its own: a process (TestServer) or in this one. */
export interface ServerUnderTest {
  store: StoreKind;
  url: string;
  port: number;
  adminToken: string;
  dataDir: string;
  databaseUrl: string | null;
  /** everything the server logged so far */
  output(): string;
  /** stops the server and removes the store */
  stop(): Promise<void>;
  /** a pg client on the server's database (postgres store only) */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

export interface TestServer extends ServerUnderTest {
  process(): ChildProcess;
  /** stops the process (SIGTERM) and starts it again on the same store and port */
  restart(): Promise<void>;
  /** stops the process; keeps the store */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** reuse a database (postgres) instead of creating one */
  databaseUrl?: string;
  dataDir?: string;
  /** what node runs (default: dist/main.js), e.g. [CLI, 'serve', '--workers', '2'] */
  args?: string[];
  /** the port to try first (default: one found free) */
  port?: number;
}

/** Generous: PGlite's first start takes seconds, and many more on a loaded machine. */
const HEALTH_DEADLINE_MS = 90_000;

async function waitForHealth(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + HEALTH_DEADLINE_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Never leave a half-started server behind: it would hold its port and store after the test run.
  child.kill('SIGKILL');
  throw new Error(`server did not become healthy within ${HEALTH_DEADLINE_MS / 1000} s:\n${output()}`);
}

/**
 * Whether the server answering at `url` is the one started with `adminToken`. A port found free can be taken by
 * another test's server before ours binds it: ours then dies on EADDRINUSE, but the other one may answer /healthz
 * first. Only a server with another admin token refuses ours; the empty body is refused before any database work.
 */
async function answersAsOurs(url: string, adminToken: string | null): Promise<boolean> {
  if (adminToken === null) return false;
  const response = await fetch(`${url}/admin/v1/hosts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: '{}',
  });
  await response.arrayBuffer();
  return response.status !== 401;
}

/** Attempts at a port of its own before a start gives up (each one a port another test took first). */
const PORT_ATTEMPTS = 5;

export async function startServer(store: StoreKind, options: StartOptions = {}): Promise<TestServer> {
  if (store === 'postgres') expectPostgresInRun();
  let port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'hostdir-test-')));
  // A fresh embedded store starts from the run's migrated one (embedded-template.ts): what a store is after its
  // first start, without the seconds its initdb takes.
  if (store === 'embedded' && !options.dataDir) await copyEmbeddedTemplate(dataDir);
  const database = store === 'postgres' && !options.databaseUrl ? await createTestDatabase() : null;
  const databaseUrl = store === 'postgres' ? (options.databaseUrl ?? database!.url) : null;
  const adminToken = `test-admin-${randomBytes(12).toString('hex')}`;
  let url = `http://127.0.0.1:${port}`;
  let log = '';
  let child!: ChildProcess;

  const launch = async () => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'info',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...options.env,
    };
    child = spawn(process.execPath, options.args ?? [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    await waitForHealth(url, child, () => log);
  };

  const kill = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };

  /** The admin token the process was given, or the one it made and wrote into its data folder (null: not yet). */
  const tokenInUse = async (): Promise<string | null> => {
    const given = options.env?.ADMIN_TOKEN ?? adminToken;
    if (given !== '') return given;
    return readFile(path.join(dataDir, 'admin-token'), 'utf8').then(
      (token) => token.trim(),
      () => null,
    );
  };

  /** Starts the process on the port in hand; on a first start, moves to another port while another server holds it. */
  const launchOwn = async (first: boolean) => {
    for (let attempt = 1; ; attempt++) {
      await launch();
      if (await answersAsOurs(url, await tokenInUse())) break;
      await kill('SIGKILL');
      if (!first || attempt === PORT_ATTEMPTS) throw new Error(`another server answers on port ${port}:\n${log}`);
      port = await freePort();
      url = `http://127.0.0.1:${port}`;
      log = '';
    }
    await loadDocument(url);
  };

  try {
    await launchOwn(true);
  } catch (error) {
    await database?.drop();
    if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const queries = databaseQueries(databaseUrl);
  return {
    store,
    url,
    port,
    adminToken,
    dataDir,
    databaseUrl,
    output: () => log,
    process: () => child,
    restart: async () => {
      await kill();
      await launchOwn(false);
    },
    kill,
    stop: async () => {
      await kill();
      await queries.end();
      await database?.drop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
    sql: queries.sql,
  };
}

/** Queries on a server's database (postgres store only), through a small pool opened at the first one. */
function databaseQueries(databaseUrl: string | null) {
  let pool: pg.Pool | null = null;
  return {
    sql: async <R>(text: string, params?: unknown[]) => {
      if (!databaseUrl) throw new Error('sql() needs the postgres store');
      if (!pool) {
        pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
        // An idle client whose connection the server ends (a restart of the shared PostgreSQL) must not fail the
        // run as an unhandled error; the next query connects again.
        pool.on('error', () => {});
      }
      return (await pool.query(text, params)).rows as R[];
    },
    end: async () => {
      await pool?.end();
    },
  };
}

export interface InProcessOptions {
  /** the environment the server's Config is read from, besides what every test server gets */
  env?: Record<string, string>;
  /** Config values set after it is read: those fixed in code (config.ts), which no variable sets */
  config?: Partial<Config>;
  /** reuse a database (postgres) instead of creating one */
  databaseUrl?: string;
}

/**
 * The server as src/server.ts starts it (migrations, heartbeat, rates, listening on a free port of 127.0.0.1), in this
 * process, with a Config of the test's own. Its log is kept for output().
 */
export async function startInProcessServer(store: StoreKind, options: InProcessOptions = {}): Promise<ServerUnderTest> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'hostdir-test-'));
  if (store === 'embedded') await copyEmbeddedTemplate(dataDir);
  const database = store === 'postgres' && !options.databaseUrl ? await createTestDatabase() : null;
  const databaseUrl = store === 'postgres' ? (options.databaseUrl ?? database!.url) : null;
  const adminToken = `test-admin-${randomBytes(12).toString('hex')}`;
  const env = {
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'info',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  };
  // Loaded here, not with this module: the tests that start a server process need none of the server's modules.
  const [{ loadConfig }, { startServer: serveInProcess }] = await Promise.all([
    import('../../src/config.js'),
    import('../../src/server.js'),
  ]);
  let log = '';
  let running: { url: string; stop(): Promise<void> };
  try {
    running = await serveInProcess({ ...loadConfig(env), ...options.config }, { write: (line) => void (log += line) });
    await loadDocument(running.url);
  } catch (error) {
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const queries = databaseQueries(databaseUrl);
  return {
    store,
    url: running.url,
    port: Number(new URL(running.url).port),
    adminToken,
    dataDir,
    databaseUrl,
    output: () => log,
    stop: async () => {
      await running.stop();
      await queries.end();
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
    sql: queries.sql,
  };
}
