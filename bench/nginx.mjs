// Starts Debian's nginx with the repository's own configuration (deploy/nginx/hostdir.conf) in front of hostdir:
// its folder, cache, logs and pid in a temporary folder, listening on a free port. Used by the cache tests and by
// npm run bench:read. Only the lines the file marks [here] are changed; should they change shape, this fails
// rather than test another configuration.
import { spawn, execFile } from 'node:child_process';
import { chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, stopProcess } from './support.mjs';

export const NGINX = process.env.NGINX ?? '/usr/sbin/nginx';
export const NGINX_CONFIG = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../deploy/nginx/hostdir.conf');

function replaceOnce(text, pattern, replacement, what) {
  if (!pattern.test(text)) throw new Error(`${NGINX_CONFIG} no longer has ${what}`);
  return text.replace(pattern, replacement);
}

/** The repository's configuration with its [here] lines set for this run. */
export async function hostdirConfig({ upstreams, port, dir, extra = '' }) {
  let text = await readFile(NGINX_CONFIG, 'utf8');
  text = replaceOnce(
    text,
    /^proxy_cache_path \S+/m,
    `proxy_cache_path ${path.join(dir, 'cache')}`,
    'its proxy_cache_path',
  );
  text = replaceOnce(
    text,
    /^(\s*)server 127\.0\.0\.1:3000;/m,
    (_, indent) => upstreams.map((upstream) => `${indent}server ${upstream};`).join('\n'),
    'its upstream server',
  );
  text = replaceOnce(text, /^(\s*)listen 80;/m, `$1listen 127.0.0.1:${port};${extra}`, 'its listen line');
  text = replaceOnce(
    text,
    /access_log \S+ hostdir;/,
    `access_log ${path.join(dir, 'access.log')} hostdir;`,
    'its access_log',
  );
  return text;
}

/**
 * nginx on a free port in front of the given upstreams ("127.0.0.1:port"). `workers` worker processes (default 1);
 * started as root, they run as nobody, which owns the temporary folder. `extra` adds directives to the server block.
 */
export async function startNginx({ upstreams, workers = 1, extra = '' }) {
  const dir = await mkdtemp(path.join(tmpdir(), 'hostdir-nginx-'));
  const port = await freePort();
  const root = process.getuid?.() === 0;
  if (root) {
    const run = promisify(execFile);
    const [uid, gid] = await Promise.all([run('id', ['-u', 'nobody']), run('id', ['-g', 'nobody'])]);
    await mkdir(path.join(dir, 'cache'));
    for (const folder of [dir, path.join(dir, 'cache')]) await chown(folder, Number(uid.stdout), Number(gid.stdout));
  }
  await writeFile(path.join(dir, 'hostdir.conf'), await hostdirConfig({ upstreams, port, dir, extra }));
  await writeFile(
    path.join(dir, 'nginx.conf'),
    [
      'daemon off;',
      `worker_processes ${workers};`,
      ...(root ? ['user nobody nogroup;'] : []),
      `pid ${path.join(dir, 'nginx.pid')};`,
      `error_log ${path.join(dir, 'error.log')} warn;`,
      'events { worker_connections 4096; }',
      'http {',
      `  client_body_temp_path ${path.join(dir, 'client_body')};`,
      `  proxy_temp_path ${path.join(dir, 'proxy')};`,
      `  fastcgi_temp_path ${path.join(dir, 'fastcgi')};`,
      `  uwsgi_temp_path ${path.join(dir, 'uwsgi')};`,
      `  scgi_temp_path ${path.join(dir, 'scgi')};`,
      '  default_type application/octet-stream;',
      `  include ${path.join(dir, 'hostdir.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  let output = '';
  const child = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  // Its workers outlive a master killed without notice: the master is told to stop whenever this process exits.
  const onExit = () => child.kill('SIGTERM');
  process.once('exit', onExit);
  const log = async () => `${output}${await readFile(path.join(dir, 'error.log'), 'utf8').catch(() => '')}`;
  const stop = async () => {
    process.off('exit', onExit);
    await stopProcess(child, 10_000);
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      const why = await log();
      await stop();
      throw new Error(`nginx exited with ${child.exitCode}: ${why}`);
    }
    const listening = await new Promise((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => (socket.destroy(), resolve(false)));
    });
    if (listening) break;
    if (Date.now() > deadline) {
      const why = await log();
      await stop();
      throw new Error(`nginx did not listen within 20 s: ${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid,
    dir,
    log,
    accessLog: () => readFile(path.join(dir, 'access.log'), 'utf8').catch(() => ''),
    stop,
  };
}
