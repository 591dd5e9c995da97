// The documentation's shell session, pasted as it stands into bash and into zsh, runs against a fresh server.
// The session is every ```sh block preceded by `<!-- session -->`, in the order of SESSION_PAGES and, within a page,
// in the page's order: it starts in the README and goes on in the docs it leads to. Each shell reads it
// from stdin as an interactive shell, as it would read a paste: zsh then takes `#` for a command and globs an
// unquoted `?`, so a comment or an unquoted URL in the session fails the run. errexit and pipefail stop it at the
// first failing command. Needs `npm run build` first (npm test does it): server and `hostdir` run from dist/.
import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { admin } from '../support/api.js';
import { CLI, startServer, type TestServer } from '../support/server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The pages the session runs through, in the order a reader follows it. */
const SESSION_PAGES = ['README.md', 'docs/sync-api.md', 'docs/directory-api.md'];

function readPages(): Promise<{ page: string; markdown: string }[]> {
  return Promise.all(
    SESSION_PAGES.map(async (page) => ({ page, markdown: await readFile(path.join(ROOT, page), 'utf8') })),
  );
}

/** The session's blocks, verbatim, in order. */
function sessionBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  for (const match of markdown.matchAll(/^<!-- session -->\n```sh\n([\s\S]*?)^```$/gm)) blocks.push(match[1]!);
  return blocks;
}

interface ShellRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const SHELLS = {
  bash: ['--norc', '--noprofile', '-i', '-e', '-o', 'pipefail'],
  zsh: ['-f', '-i', '-e', '-o', 'pipefail'],
} as const;
type Shell = keyof typeof SHELLS;

/** Fails (never skips) when a program the session needs is missing. */
function requireProgram(name: string): void {
  const probe = spawnSync(name, ['--version']);
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `${name} is not installed, and the documentation's session must be checked with it: apt-get install ${name} (.ci/run installs it)`,
    );
  }
}

function runShell(shell: Shell, script: string, cwd: string, env: Record<string, string>): Promise<ShellRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, [...SHELLS[shell]], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(script);
  });
}

describe("the documentation's session", () => {
  let server: TestServer | undefined;
  let home: string | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    if (home) await rm(home, { recursive: true, force: true });
    home = undefined;
  });

  it('starts in the README, goes on in each page, and holds no placeholder', async () => {
    const pages = await readPages();
    for (const { page, markdown } of pages) expect(sessionBlocks(markdown).length, page).toBeGreaterThanOrEqual(2);
    const blocks = pages.flatMap(({ markdown }) => sessionBlocks(markdown));
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    expect(blocks[0]).toMatch(/^export HOSTDIR_URL=/);
    for (const block of blocks) {
      expect(block).not.toContain('…');
      expect(block).not.toMatch(/uuidgen|\bjq\b/);
    }
  });

  it("leaves out no shell example that talks to the server with the session's variables", async () => {
    for (const { page, markdown } of await readPages()) {
      const session = new Set(sessionBlocks(markdown));
      const all = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
      const outside = all.filter((block) => !session.has(block) && /\$\{?(HOSTDIR_URL|KEY)\b/.test(block));
      expect(outside, page).toEqual([]);
    }
  });

  it.each(Object.keys(SHELLS) as Shell[])(
    'runs pasted into %s',
    async (shell) => {
      requireProgram(shell);
      requireProgram('curl');
      const script = (await readPages()).flatMap(({ markdown }) => sessionBlocks(markdown)).join('\n');

      server = await startServer('embedded');
      // The user's folder: `hostdir` on PATH (what `npm link` gives), HOME and the session's files in a fresh directory.
      home = await mkdtemp(path.join(tmpdir(), `hostdir-readme-${shell}-`));
      const bin = path.join(home, 'bin');
      await mkdir(bin);
      await writeFile(path.join(bin, 'hostdir'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
      await chmod(path.join(bin, 'hostdir'), 0o755);
      const env = {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        HOME: home,
        TERM: 'dumb',
        LANG: 'C.UTF-8',
        HOSTDIR_URL: server.url,
        ADMIN_TOKEN: server.adminToken,
      };

      const run = await runShell(shell, script, home, env);
      const report = `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.code, report).toBe(0);

      // What the session shows, block by block (curl adds no newline after a body, so answers run together): the
      // applied sync, the 429, the refusals, the listing, the replay, push's dry run, the history and the directory.
      expect(run.stdout, report).toMatch(
        /"products":\[\{"external_id":"vps-s","id":"prd_[^"]+","action":"created"\}\]/,
      );
      expect(run.stdout, report).toMatch(/HTTP\/1\.1 429 Too Many Requests\r\n/);
      expect(run.stdout, report).toMatch(/"code":"RATE_LIMITED"/);
      expect(run.stdout, report).toMatch(/"pointer":"\/products\/0\/category","code":"enum"/);
      expect(run.stdout, report).toMatch(/"pointer":"\/products\/0\/name","code":"control_characters"/);
      expect(run.stdout, report).toMatch(/"external_id":"vps-s".*"status":"active"/);
      expect(run.stdout, report).toMatch(/HTTP\/1\.1 200 OK\r\n/);
      expect(run.stdout, report).toMatch(/\r\nidempotent-replayed: true\r\n/i);
      expect(run.stdout, report).toMatch(/"runs":\[\{"sync_id":"syn_/);
      expect(run.stdout, report).toMatch(/"hosts":\[\{"slug":"acme-hosting"/);
      expect(run.stdout, report).toMatch(/"host":\{"slug":"harbor-cloud"/);
      expect(run.stdout, report).toMatch(/"product":\{"id":"prd_/);
      // The API key stays in the shell's variables: it never reaches the screen.
      expect(run.stdout + run.stderr).not.toMatch(/rk_[0-9a-f]{64}/);

      // And the server holds what the session did: one host, its one product, one applied sync and a dry run.
      const products = await admin(server, 'GET', '/hosts/acme-hosting/products?status=all');
      expect(products.status, products.text).toBe(200);
      expect(products.body.products).toEqual([
        expect.objectContaining({ external_id: 'vps-s', name: 'VPS S', currency: 'USD', status: 'active' }),
      ]);
      const syncs = await admin(server, 'GET', '/hosts/acme-hosting/syncs');
      expect(syncs.status, syncs.text).toBe(200);
      expect(syncs.body.runs.map((r: { dry_run: boolean }) => r.dry_run)).toEqual([true, false]);
    },
    240_000,
  );
});
