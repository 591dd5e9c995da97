// What the benchmarks (and the tests that start nginx or PgBouncer) share: a database client for one task, a free
// port, stopping a child process for good, the real server on a database, started as deploy/systemd starts it, a
// build of another git ref to compare with (BENCH_BASELINE), and the writer of a run's table.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(ROOT, 'dist/main.js');
const PERFORMANCE_PAGE = path.join(ROOT, 'docs/performance.md');
/** The environment the service unit starts the server in (deploy/systemd/hostdir.service, EnvironmentFile=). */
const DEPLOYED_ENV = path.join(ROOT, 'deploy/systemd/hostdir.env');

/**
 * The variables of deploy/systemd/hostdir.env (KEY=VALUE lines; # and ; begin comments; a value may be quoted), with
 * which the benchmarks start the server, as the unit does, so that their figures are the deployment's.
 */
export function serverEnvironment() {
  const env = {};
  for (const line of readFileSync(DEPLOYED_ENV, 'utf8').split('\n')) {
    const assignment = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!assignment || /^\s*[#;]/.test(line)) continue;
    const value = assignment[2].trim();
    env[assignment[1]] = /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
  }
  return env;
}

/** PostgreSQL's settings for hostdir's database (deploy/postgresql/hostdir.conf), set on each database of a benchmark. */
const DEPLOYED_DATABASE_SETTINGS = path.join(ROOT, 'deploy/postgresql/hostdir.conf');

/**
 * The settings of deploy/postgresql/hostdir.conf (`name = value` lines, as in postgresql.conf; # begins a comment) set
 * on the database `url` names, as the deployment sets them: connections opened afterwards have them.
 */
export async function applyDatabaseSettings(url) {
  const settings = [];
  for (const line of readFileSync(DEPLOYED_DATABASE_SETTINGS, 'utf8').split('\n')) {
    const text = line.replace(/#.*$/, '').trim();
    if (text === '') continue;
    const setting = /^([a-z_][a-z0-9_.]*)\s*=\s*'?([^']*?)'?$/.exec(text);
    if (!setting) throw new Error(`${DEPLOYED_DATABASE_SETTINGS}: not a setting: ${line}`);
    settings.push([setting[1], setting[2]]);
  }
  await withClient(url, async (client) => {
    const database = client.escapeIdentifier(new URL(url).pathname.slice(1));
    for (const [name, value] of settings) {
      await client.query(`ALTER DATABASE ${database} SET ${name} = ${client.escapeLiteral(value)}`);
    }
  });
}

/** node's arguments for the server at `main`, as the unit's ExecStart gives them: `node $V8_FLAGS dist/main.js`. */
export function serverArguments(main = MAIN, env = serverEnvironment()) {
  return [...(env.V8_FLAGS ?? '').split(/\s+/).filter(Boolean), main];
}

/** fn with a connected client on `url`, closed afterwards. */
export async function withClient(url, fn) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The URL of database `name` (a plain lower-case name, checked) on the server of `serverUrl`. */
export function databaseUrlOf(serverUrl, name) {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new Error(`BENCH_DATABASE must be a plain lower-case name, got ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A TCP port on 127.0.0.1 that nothing listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * CPU time the process's threads have run so far, in milliseconds (Linux): the sum over its threads' schedstat, in
 * nanoseconds, so that a round of a few milliseconds (the smoke run's) is measured too, not rounded to clock ticks.
 */
export async function cpuMs(pid) {
  let ns = 0;
  for (const thread of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').catch(() => '0');
    ns += Number(stat.split(' ')[0]);
  }
  return ns / 1e6;
}

/**
 * CPU time of every PostgreSQL process of the machine so far, in milliseconds (Linux): what the database spends on a
 * scenario, read before and after it. Not for the embedded store, whose database runs inside the server (its CPU is
 * the server's) and the floor's inside the benchmark.
 */
export async function postgresCpuReading() {
  const reading = new Map();
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const comm = await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '');
    if (comm.trim() !== 'postgres') continue;
    const ms = await cpuMs(pid).catch(() => null);
    if (ms !== null) reading.set(pid, ms);
  }
  return reading;
}

/**
 * The CPU PostgreSQL's processes spent between two readings, in milliseconds: each process's growth (a process that
 * started between them, all of its own). A process that ended between them is left out rather than subtracted, so
 * that backends of other clients closing meanwhile never make the figure negative.
 */
export function postgresCpuBetween(before, after) {
  let ms = 0;
  for (const [pid, spent] of after) ms += Math.max(0, spent - (before.get(pid) ?? 0));
  return ms;
}

/** CPU time so far of the process and of every process under it (a server's cluster workers), in milliseconds (Linux). */
export async function treeCpuMs(pid) {
  const parents = new Map();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …: the command may hold spaces and parentheses, so read past its last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isFinite(ppid)) parents.set(Number(entry), ppid);
  }
  const tree = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [child, parent] of parents) {
      if (tree.has(parent) && !tree.has(child)) {
        tree.add(child);
        grew = true;
      }
    }
  }
  let ms = 0;
  for (const member of tree) ms += await cpuMs(member).catch(() => 0);
  return ms;
}

/** SIGTERM, then SIGKILL if it has not exited `graceMs` later; resolves once it has exited. */
export async function stopProcess(child, graceMs = 30_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * The real server (node dist/main.js, or `main`: another build's) as the service unit starts it, with `env` added
 * (LOG_LEVEL warn unless given; the embedded store in a temporary folder unless DATABASE_URL is given), once it answers
 * /readyz. It is killed should this process exit first.
 */
export async function startServer(env = {}, main = MAIN) {
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'hostdir-bench-'));
  const adminToken = `bench-${randomBytes(12).toString('hex')}`;
  const deployed = serverEnvironment();
  const child = spawn(process.execPath, serverArguments(main, deployed), {
    env: {
      ...deployed,
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.off('exit', kill);
    await stopProcess(child);
    await rm(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(
        `hostdir ${child.exitCode === null ? 'did not start' : `exited with ${child.exitCode}`}:\n${output}`,
      );
    }
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, port, pid: child.pid, adminToken, output: () => output, stop };
}

/** startServer on a PostgreSQL database, its generated hosts confirmed. */
export async function startHostdir(databaseUrl, env = {}, main = MAIN) {
  // Before the server opens its connections: they take the database's settings when they open.
  await applyDatabaseSettings(databaseUrl);
  const server = await startServer({ DATABASE_URL: databaseUrl, ...env }, main);
  // The benchmarks generate their hosts in the database, without a sync: each is taken as confirmed now
  // (docs/directory-api.md, "Verified freshness"), or the directory would leave every one of them out as never confirmed. A build without
  // the column (a baseline) has nothing to mark. The hosts' statistics are then taken again: left as they were (every
  // host unconfirmed), the planner would expect no confirmed host and join the other way round, product by product.
  await withClient(databaseUrl, async (client) => {
    const found = await client.query(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'hosts' AND column_name = 'confirmed_at'`,
    );
    if (found.rowCount === 0) return;
    const marked = await client.query('UPDATE hosts SET confirmed_at = now() WHERE confirmed_at IS NULL');
    if (marked.rowCount > 0) await client.query('ANALYZE hosts');
  });
  return server;
}

/**
 * Writes a run's tables into docs/performance.md, between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->`,
 * in place of the run recorded there: the page holds the last run as the benchmark measured it, never a copy by hand.
 * `tables` are [header, ...rows] arrays of cells; a column whose cells read as numbers (or are empty, or a dash) is
 * aligned right. Above them, the command and the machine: cores, CPU, memory, Node.js, the database (`database`, as
 * the run names it), load and date.
 */
export async function writeLastRun(name, { command, database, tables }) {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const page = await readFile(PERFORMANCE_PAGE, 'utf8');
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${PERFORMANCE_PAGE} has no section ${start} … ${end}`);
  const cpus = os.cpus();
  const machine = [
    `${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'})`,
    `${Math.round(os.totalmem() / 1024 ** 3)} GB`,
    `Node.js ${process.version}`,
    ...(database ? [database] : []),
    `load average ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')} at the end`,
    new Date().toISOString().slice(0, 10),
  ].join(', ');
  const numeric = (cell) => /^[-−]?[\d.]+( ?(ms|MB|×|%))?$/.test(cell);
  const markdown = tables.map(([header, ...rows]) => {
    const cells = (c) => rows.map((row) => String(row[c])).filter((cell) => cell !== '' && cell !== '—');
    const align = header.map((_, c) => (cells(c).length > 0 && cells(c).every(numeric) ? '---:' : '---'));
    return [header, align, ...rows].map((row) => `| ${row.join(' | ')} |`).join('\n');
  });
  const section = [`\`${command}\` on ${machine}:`, ...markdown].join('\n\n');
  await writeFile(PERFORMANCE_PAGE, `${page.slice(0, from + start.length)}\n${section}\n${page.slice(to)}`);
}

/**
 * A build of git ref `ref` to measure beside this checkout's (BENCH_BASELINE): the ref checked out into a temporary
 * git worktree and compiled there with this checkout's node_modules. Gives its commit, its folder, its dist/main.js
 * and a cleanup that removes the worktree.
 */
export async function buildBaseline(ref, log = () => {}) {
  const dir = await mkdtemp(path.join(tmpdir(), 'hostdir-baseline-'));
  const sha = execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', `${ref}^{commit}`], {
    encoding: 'utf8',
  }).trim();
  log(`building the baseline ${ref} (${sha.slice(0, 12)}) in ${dir}`);
  execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, sha], { stdio: 'ignore' });
  const cleanup = async () => {
    try {
      execFileSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
    } catch {
      await rm(dir, { recursive: true, force: true });
    }
  };
  try {
    await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: dir,
      stdio: 'inherit',
    });
    const main = path.join(dir, 'dist/main.js');
    if (!existsSync(main)) throw new Error(`the baseline build has no ${main}`);
    return { sha, dir, main, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
