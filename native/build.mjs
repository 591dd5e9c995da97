// Builds the native addons in native/ (npm install runs this). The server runs without them: a build that fails
// (no C compiler, not Linux) is reported and the install goes on; the server's start log says what it then does.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** glibc's malloc settings (native/malloc): Linux only, where glibc is the C library. */
const ADDONS = [{ directory: path.join(here, 'malloc'), platforms: ['linux'] }];

/** npm hands its own node-gyp to install scripts; outside npm, the one npm bundles beside node is used. */
function nodeGyp() {
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp;
  return path.join(path.dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js');
}

/**
 * Where node's C headers are: npm's nodedir setting, else beside the running node where its installation ships them
 * (/usr/include/node for Debian's and most packages), else nothing, and node-gyp fetches those of this version.
 */
function nodeHeaders() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  return existsSync(path.join(prefix, 'include/node/common.gypi')) ? prefix : null;
}

for (const { directory, platforms } of ADDONS) {
  const name = path.relative(path.dirname(here), directory);
  if (!platforms.includes(process.platform)) {
    console.log(`${name}: not built on ${process.platform} (the server runs without it)`);
    continue;
  }
  const args = [nodeGyp(), 'rebuild', '--directory', directory];
  const headers = nodeHeaders();
  if (headers) args.push('--nodedir', headers);
  const build = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (build.status === 0) {
    console.log(`${name}: built`);
    continue;
  }
  const said = `${build.stdout ?? ''}${build.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
  console.warn(`${name}: not built, the server runs without it (README, "Sizing"):\n${build.error?.message ?? said}`);
}
