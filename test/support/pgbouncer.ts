// Starts Debian's PgBouncer in transaction mode, on a free port, in front of the test PostgreSQL server: its own
// configuration, log and pid file in a temporary folder, removed when it stops.
import { spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopProcess } from '../../bench/support.mjs';
import { ADMIN_DATABASE_URL, freePort } from './server.js';
import { postgresUser, type SystemUser } from './system-user.js';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** the URL of a database on the test server, through this PgBouncer */
  urlFor(databaseUrl: string): string;
  /** what PgBouncer logged so far */
  log(): Promise<string>;
  stop(): Promise<void>;
}

export interface PgBouncerOptions {
  /** server connections per database and user: fewer than the clients', so that they are really shared */
  poolSize?: number;
}

function waitForPort(port: number, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`pgbouncer exited with ${child.exitCode}: ${output()}`));
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline)
          return reject(new Error(`pgbouncer did not listen within ${timeoutMs} ms: ${output()}`));
        setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

export async function startPgBouncer(options: PgBouncerOptions = {}): Promise<PgBouncer> {
  const server = new URL(ADMIN_DATABASE_URL);
  const user = decodeURIComponent(server.username || 'postgres');
  const dir = await mkdtemp(path.join(tmpdir(), 'hostdir-pgbouncer-'));
  const runAs: SystemUser | null = await postgresUser();
  // PgBouncer refuses to run as root; started as root, it switches to `user` and must still write its log there.
  if (runAs) await chown(dir, runAs.uid, runAs.gid);
  const port = await freePort();
  const config = path.join(dir, 'pgbouncer.ini');
  await writeFile(path.join(dir, 'userlist.txt'), `"${user}" ""\n`);
  await writeFile(
    config,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 8}`,
      'max_client_conn = 1000',
      // hostdir's pg driver sends these at connection start; PgBouncer refuses unknown startup parameters.
      'ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout,options',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
      `admin_users = ${user}`,
      ...(runAs ? [`user = ${runAs.name}`] : []),
      '',
    ].join('\n'),
  );
  let output = '';
  const child = spawn(PGBOUNCER, [config], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    // SIGTERM: PgBouncer closes at once (SIGINT would wait for its clients).
    await stopProcess(child, 10_000);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, child, () => output, 20_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    urlFor(databaseUrl: string) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    log: () => readFile(path.join(dir, 'pgbouncer.log'), 'utf8').catch(() => output),
    stop,
  };
}
