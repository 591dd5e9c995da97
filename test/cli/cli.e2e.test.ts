// The operator's flow of docs/cli.md, run through the built `hostdir` command against a real server.
// Needs `npm run build` first (npm test does it): both sides run from dist/.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, freePort, startServer, type TestServer } from '../support/server.js';

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function hostdir(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('hostdir command line against the server', () => {
  let server: TestServer;
  let env: Record<string, string>;

  /** Runs hostdir, expects exit 0, and parses its --json output. */
  async function json<T>(...args: string[]): Promise<T> {
    const result = await hostdir([...args, '--json'], env);
    expect(result, result.stderr).toMatchObject({ code: 0 });
    return JSON.parse(result.stdout) as T;
  }

  interface Key {
    id: string;
    key?: string;
    prefix: string;
    status: string;
  }

  beforeAll(async () => {
    server = await startServer('embedded');
    env = { HOSTDIR_URL: server.url, ADMIN_TOKEN: server.adminToken };
  });

  afterAll(async () => {
    await server?.stop();
  });

  let firstKey: Key;

  it('creates a host and shows its first key exactly once', async () => {
    const created = await json<{ host: { slug: string; name: string; status: string }; api_key: Key }>(
      'hosts',
      'create',
      'Acme Hosting',
    );
    expect(Object.keys(created).sort()).toEqual(['api_key', 'host']);
    expect(created.host).toMatchObject({ slug: 'acme-hosting', name: 'Acme Hosting', status: 'active' });
    expect(created.api_key.key).toMatch(/^rk_[0-9a-f]{64}$/);
    expect(created.api_key.prefix).toBe(created.api_key.key?.slice(3, 11));
    expect(created.api_key.id).toMatch(/^key_/);
    firstKey = created.api_key;
  });

  it('prints the key prominently in text mode', async () => {
    const result = await hostdir(['hosts', 'create', 'Beta Cloud', '--slug', 'beta', '--currency', 'EUR'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/rk_[0-9a-f]{64}/);
    expect(result.stdout).toMatch(/shown only once/);
  });

  it('lists and shows hosts', async () => {
    const { hosts } = await json<{ hosts: { slug: string }[] }>('hosts', 'list');
    expect(hosts.map((h) => h.slug).sort()).toEqual(['acme-hosting', 'beta']);

    const text = await hostdir(['hosts', 'list'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^SLUG\s+NAME/);
    expect(text.stdout).toContain('acme-hosting');

    const { host } = await json<{ host: unknown }>('hosts', 'show', 'acme-hosting');
    expect(host).toMatchObject({
      slug: 'acme-hosting',
      status: 'active',
      product_counts: { active: 0, inactive: 0 },
      last_sync_at: null,
    });
  });

  it('issues, lists and revokes keys, never listing a plaintext', async () => {
    const { api_key: second } = await json<{ api_key: Key }>('keys', 'create', 'acme-hosting');
    expect(second.key).toMatch(/^rk_[0-9a-f]{64}$/);
    expect(second.key).not.toBe(firstKey.key);

    const revoked = await json<{ api_key: Key }>('keys', 'revoke', second.id);
    expect(revoked.api_key).toMatchObject({ id: second.id, status: 'revoked' });

    const { keys } = await json<{ keys: Key[] }>('keys', 'list', 'acme-hosting');
    const status = Object.fromEntries(keys.map((k) => [k.id, k.status]));
    expect(status).toEqual({ [firstKey.id]: 'active', [second.id]: 'revoked' });
    expect(keys.every((k) => !('key' in k))).toBe(true);

    const text = await hostdir(['keys', 'list', 'acme-hosting'], env);
    expect(text.stdout).toMatch(new RegExp(`${second.id}\\s+${second.prefix}\\s+revoked`));
  });

  it('suspends and activates a host', async () => {
    expect((await json<{ host: { status: string } }>('hosts', 'suspend', 'acme-hosting')).host.status).toBe(
      'suspended',
    );
    expect((await json<{ host: { status: string } }>('hosts', 'show', 'acme-hosting')).host.status).toBe('suspended');
    expect((await json<{ host: { status: string } }>('hosts', 'activate', 'acme-hosting')).host.status).toBe('active');
  });

  it('lists and adds categories', async () => {
    const before = await json<{ categories: { slug: string }[] }>('categories', 'list');
    expect(before.categories.map((c) => c.slug)).toContain('vps_cloud');
    expect(before.categories.map((c) => c.slug)).not.toContain('game_factorio');

    const added = await json<{ category: unknown }>('categories', 'add', 'game_factorio', 'Factorio servers');
    expect(added.category).toEqual({ slug: 'game_factorio', label: 'Factorio servers' });

    const after = await json<{ categories: { slug: string; label: string }[] }>('categories', 'list');
    expect(after.categories).toContainEqual({ slug: 'game_factorio', label: 'Factorio servers' });
  });

  it('lists no products and no syncs for a new host', async () => {
    expect(await json('products', 'list', 'acme-hosting')).toEqual({ products: [], next_cursor: null });
    expect(await json('products', 'list', 'acme-hosting', '--status', 'all', '--all-pages')).toEqual({
      products: [],
      next_cursor: null,
    });
    expect(await json('syncs', 'list', 'acme-hosting', '--limit', '5')).toEqual({ runs: [], next_cursor: null });
  });

  it('exits 1 with the problem code when the server refuses', async () => {
    const wrongToken = await hostdir(['hosts', 'list'], { ...env, ADMIN_TOKEN: 'not-the-token' });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/^error: .*\(UNAUTHORIZED, HTTP 401\)/);

    const missing = await hostdir(['hosts', 'show', 'no-such-host'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('(NOT_FOUND, HTTP 404)');
  });

  it('exits 3 when no server answers', async () => {
    const result = await hostdir(['hosts', 'list', '--url', `http://127.0.0.1:${await freePort()}`], env);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: cannot reach hostdir at http:\/\/127\.0\.0\.1:\d+: /);
  });

  it('exits 2 without an admin token', async () => {
    const emptyDataDir = await mkdtemp(join(tmpdir(), 'hostdir-cli-e2e-'));
    try {
      const result = await hostdir(['hosts', 'list'], { HOSTDIR_URL: server.url, DATA_DIR: emptyDataDir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('ADMIN_TOKEN');
    } finally {
      await rm(emptyDataDir, { recursive: true, force: true });
    }
  });
});
