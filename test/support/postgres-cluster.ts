// PostgreSQL servers of a test's own: a primary made by initdb and a streaming standby made from it by
// pg_basebackup, in a temporary folder, on free ports, run as the postgres user. Never the shared server: these
// can be stopped, paused and started again. Everything is removed when the test ends, and the servers are stopped
// even if the test process exits without cleaning up.
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './server.js';
import { postgresUser } from './system-user.js';
import { until } from './until.js';

/** Debian's PostgreSQL tools, of the newest version installed (15 on this project's machines). */
export const POSTGRES_BIN =
  process.env.POSTGRES_BIN ??
  `/usr/lib/postgresql/${
    readdirSync('/usr/lib/postgresql')
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a))[0] ?? '15'
  }/bin`;

export interface Cluster {
  name: string;
  port: number;
  dataDir: string;
  /** postgres://postgres@127.0.0.1:port/database */
  url(database?: string): string;
  /** one query on a fresh connection */
  sql<R = Record<string, unknown>>(text: string, params?: unknown[], database?: string): Promise<R[]>;
  /** pg_ctl stop: "fast" rolls back and disconnects, "immediate" is a crash */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  log(): Promise<string>;
}

export interface Replication {
  primary: Cluster;
  standby: Cluster;
  /** stops both servers and removes their folder */
  destroy(): Promise<void>;
}

/** Clusters still running, stopped at exit should a test end without destroy(). */
const running = new Set<string>();
process.once('exit', () => {
  for (const dataDir of running) {
    try {
      execFileSync(path.join(POSTGRES_BIN, 'pg_ctl'), ['-D', dataDir, 'stop', '-m', 'immediate'], {
        stdio: 'ignore',
        ...asPostgresSync(),
      });
    } catch {
      // already stopped
    }
  }
});

let postgres: { uid: number; gid: number } | null | undefined;
function asPostgresSync(): { uid?: number; gid?: number } {
  return postgres ? { uid: postgres.uid, gid: postgres.gid } : {};
}

async function run(tool: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      path.join(POSTGRES_BIN, tool),
      args,
      { ...asPostgresSync(), env: { PATH: process.env.PATH ?? '', LANG: 'C', LC_ALL: 'C' }, timeout: 120_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${tool} ${args.join(' ')} failed: ${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

function cluster(name: string, root: string, port: number, settings: string[]): Cluster {
  const dataDir = path.join(root, name);
  const logFile = path.join(root, `${name}.log`);
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const options = [
    '-p',
    String(port),
    '-k',
    root,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'shared_buffers=16MB',
    ...settings,
  ];
  return {
    name,
    port,
    dataDir,
    url,
    async sql<R>(text: string, params?: unknown[], database?: string) {
      const client = new pg.Client({ connectionString: url(database) });
      await client.connect();
      try {
        return (await client.query(text, params)).rows as R[];
      } finally {
        await client.end();
      }
    },
    async start() {
      await run('pg_ctl', [
        '-D',
        dataDir,
        '-l',
        logFile,
        '-o',
        options.map((option) => `'${option}'`).join(' '),
        '-w',
        '-t',
        '60',
        'start',
      ]);
      running.add(dataDir);
    },
    async stop(mode = 'fast') {
      await run('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
      running.delete(dataDir);
    },
    log: () => readFile(logFile, 'utf8').catch(() => ''),
  };
}

async function ownFolder(name: string): Promise<string> {
  postgres = await postgresUser();
  const root = await mkdtemp(path.join(tmpdir(), `hostdir-${name}-`));
  if (postgres) await chown(root, postgres.uid, postgres.gid);
  return root;
}

/** One server of the test's own, started with `settings` (pairs of "-c", "name=value"); destroy() removes it. */
export async function startCluster(settings: string[] = []): Promise<Cluster & { destroy(): Promise<void> }> {
  const root = await ownFolder('postgres');
  const server = cluster('server', root, await freePort(), settings);
  const destroy = async () => {
    if (running.has(server.dataDir)) await server.stop('immediate').catch(() => {});
    await rm(root, { recursive: true, force: true });
  };
  try {
    await run('initdb', [
      '-D',
      server.dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    await server.start();
  } catch (error) {
    await destroy();
    throw error;
  }
  return Object.assign(server, { destroy });
}

/** A primary and a hot standby streaming from it, both running. */
export async function startReplication(): Promise<Replication> {
  const root = await ownFolder('replication');
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const primary = cluster('primary', root, primaryPort, [
    '-c',
    'wal_level=replica',
    '-c',
    'max_wal_senders=4',
    '-c',
    'max_connections=60',
  ]);
  // hot_standby_feedback: the primary's vacuum does not remove rows the standby's queries still read.
  const standby = cluster('standby', root, standbyPort, [
    '-c',
    'hot_standby=on',
    '-c',
    'hot_standby_feedback=on',
    '-c',
    'max_connections=60',
  ]);
  const destroy = async () => {
    for (const server of [standby, primary]) {
      if (running.has(server.dataDir)) await server.stop('immediate').catch(() => {});
    }
    await rm(root, { recursive: true, force: true });
  };
  try {
    await run('initdb', [
      '-D',
      primary.dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    await primary.start();
    // -R writes standby.signal and the primary's address: the copy starts as a standby streaming from it.
    await run('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      standby.dataDir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
    ]);
    await standby.start();
    await until(
      async () =>
        (
          await primary.sql<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming'`,
          )
        )[0]!.n === 1,
      30_000,
      'the standby to stream from the primary',
      100,
    );
  } catch (error) {
    await destroy();
    throw error;
  }
  return { primary, standby, destroy };
}
