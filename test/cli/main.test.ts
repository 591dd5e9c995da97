// The command line against a stand-in for fetch: what it sends, prints and exits with.
import { describe, expect, it } from 'vitest';
import { type CliContext, run } from '../../src/cli/main.js';

interface Call {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function json(status: number, body: unknown, type = 'application/json'): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });
}

function cli(
  answer: (call: Call) => Response | Promise<Response>,
  env: Record<string, string> = { ADMIN_TOKEN: 'secret' },
) {
  const calls: Call[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CliContext = {
    env,
    readFile: () => undefined,
    fetch: async (input, init) => {
      const call = {
        method: init?.method ?? 'GET',
        url: String(input),
        headers: (init?.headers ?? {}) as Record<string, string>,
        body: init?.body === undefined ? undefined : String(init.body),
      };
      calls.push(call);
      return answer(call);
    },
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
  };
  return {
    calls,
    run: async (...args: string[]) => ({ code: await run(args, ctx), stdout: out.join(''), stderr: err.join('') }),
  };
}

const host = {
  slug: 'acme-hosting',
  name: 'Acme Hosting',
  default_currency: 'USD',
  status: 'active',
  created_at: '2026-11-21T12:00:00.000Z',
  updated_at: '2026-11-21T12:00:00.000Z',
};
const issued = {
  id: 'key_1',
  key: `rk_${'0123456789abcdef'.repeat(4)}`,
  prefix: '01234567',
  status: 'active',
  created_at: '2026-11-21T12:00:00.000Z',
  revoked_at: null,
  last_used_at: null,
};

describe('hostdir (unit)', () => {
  it('creates a host with the admin token and prints the JSON answer as it came', async () => {
    const body = { host, api_key: issued };
    const { calls, run } = cli(() => json(201, body));
    const result = await run(
      'hosts',
      'create',
      'Acme Hosting',
      '--currency',
      'EUR',
      '--json',
      '--url',
      'http://dir.test:9/',
    );
    expect(result).toEqual({ code: 0, stdout: `${JSON.stringify(body, null, 2)}\n`, stderr: '' });
    expect(calls).toEqual([
      {
        method: 'POST',
        url: 'http://dir.test:9/admin/v1/hosts',
        headers: expect.objectContaining({ authorization: 'Bearer secret', 'content-type': 'application/json' }),
        body: JSON.stringify({ name: 'Acme Hosting', default_currency: 'EUR' }),
      },
    ]);
  });

  it('shows the plaintext key prominently in text mode', async () => {
    const { run } = cli(() => json(201, { host, api_key: issued }));
    const { code, stdout } = await run('hosts', 'create', 'Acme Hosting');
    expect(code).toBe(0);
    expect(stdout).toContain(issued.key);
    expect(stdout).toMatch(/shown only once/);
  });

  it('sends a bodiless POST without a JSON content type', async () => {
    const { calls, run } = cli(() => json(200, { host: { ...host, status: 'suspended' } }));
    const { code, stdout } = await run('hosts', 'suspend', 'acme hosting');
    expect(code).toBe(0);
    expect(stdout).toBe('Host acme-hosting is suspended.\n');
    expect(calls[0]?.url).toBe('http://127.0.0.1:3000/admin/v1/hosts/acme%20hosting/suspend');
    expect(calls[0]?.headers['content-type']).toBeUndefined();
    expect(calls[0]?.body).toBeUndefined();
  });

  it('exits 1 with the problem and each of its errors when the server refuses', async () => {
    const problem = {
      type: '/api/v1/problems/validation-failed',
      title: 'Validation failed',
      status: 422,
      code: 'VALIDATION_FAILED',
      detail: '2 problems in the request',
      errors: [
        { pointer: '/slug', code: 'pattern', detail: 'must match ^[a-z0-9_]+$' },
        { parameter: 'limit', code: 'maximum', detail: 'must be <= 1000' },
      ],
    };
    const { run } = cli(() => json(422, problem, 'application/problem+json'));
    const result = await run('categories', 'add', 'Bad Slug', 'Bad');
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'error: 2 problems in the request (VALIDATION_FAILED, HTTP 422)',
        '  /slug pattern must match ^[a-z0-9_]+$',
        '  limit maximum must be <= 1000',
        '',
      ].join('\n'),
    });
  });

  it('exits 1 on an answer that is not a problem document, keeping the status', async () => {
    const { run } = cli(() => new Response('<html>Bad Gateway</html>', { status: 502 }));
    const { code, stderr } = await run('hosts', 'list');
    expect(code).toBe(1);
    expect(stderr).toContain('(HTTP_502, HTTP 502)');
  });

  it('exits 3 when nothing answers', async () => {
    const { run } = cli(() => {
      throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:3000') });
    });
    const result = await run('hosts', 'list');
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      'error: cannot reach hostdir at http://127.0.0.1:3000: connect ECONNREFUSED 127.0.0.1:3000\n',
    );
  });

  it('exits 2 without calling the server when there is no admin token', async () => {
    const { calls, run } = cli(() => json(200, { hosts: [] }), {});
    const result = await run('hosts', 'list');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ADMIN_TOKEN/);
    expect(calls).toHaveLength(0);
  });

  it('exits 2 on a usage error', async () => {
    const { calls, run } = cli(() => json(200, {}));
    expect((await run('products', 'list', 'acme', '--limit', 'ten')).code).toBe(2);
    expect((await run('products', 'list', 'acme', '--status', 'gone')).code).toBe(2);
    expect((await run('hosts', 'show')).code).toBe(2);
    expect((await run('nonsense')).code).toBe(2);
    expect(calls).toHaveLength(0);
    expect((await run('--help')).code).toBe(0);
  });

  it('follows next_cursor with --all-pages and prints one combined listing', async () => {
    const product = (n: number) => ({
      id: `prd_${n}`,
      external_id: `p${n}`,
      name: `P${n}`,
      category: 'vps_cloud',
      price: n,
      currency: 'USD',
      status: 'active',
    });
    const { calls, run } = cli((call) =>
      new URL(call.url).searchParams.get('cursor') === 'c2'
        ? json(200, { products: [product(3)], next_cursor: null })
        : json(200, { products: [product(1), product(2)], next_cursor: 'c2' }),
    );
    const { code, stdout } = await run(
      'products',
      'list',
      'acme',
      '--status',
      'all',
      '--limit',
      '2',
      '--all-pages',
      '--json',
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ products: [product(1), product(2), product(3)], next_cursor: null });
    expect(calls.map((c) => c.url)).toEqual([
      'http://127.0.0.1:3000/admin/v1/hosts/acme/products?status=all&limit=2',
      'http://127.0.0.1:3000/admin/v1/hosts/acme/products?status=all&limit=2&cursor=c2',
    ]);
  });
});
