// `hostdir import` and `hostdir push --from` against local servers answering as WHMCS, Blesta and HostBill document:
// what is asked of them, the catalogue written, the report of what was read (left out, without specs, without a
// location), every error answer (credentials, IP not allowed, HTML pages, 5xx, timeouts, redirects, paging), the
// exit codes, and no credential anywhere in what the command prints.
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { catalogueFrom } from '../../src/connectors/catalogue.js';
import { parseCategoryMap } from '../../src/connectors/category-map.js';
import { whmcsProducts } from '../../src/connectors/whmcs.js';
import { type CliContext, run } from '../../src/cli/main.js';
import {
  BLESTA_ERRORS,
  BLESTA_PACKAGE_OPTIONS,
  BLESTA_PACKAGES,
  HOSTBILL_GETORDERPAGES_EXAMPLE,
  HOSTBILL_GETPRODUCTS_EXAMPLE,
  HOSTBILL_SHARED_PRODUCTS,
  WHMCS_CATALOGUE,
  WHMCS_GETPRODUCTS_EXAMPLE,
} from '../connectors/fixtures.js';
import {
  blesta,
  type FakeBillingSystem,
  type Handler,
  hostbill,
  sendHtml,
  sendJson,
  startFakeBillingSystem,
  whmcs,
} from '../support/billing-systems.js';

const WHMCS_IDENTIFIER = 'D4j1dKYE3g40VROOPCGyJ9zRwP0ADJIv';
const WHMCS_SECRET = 'F1CKGXRIpylMfsrig3mwwdSdYUdLiFlo+/&=%';
const WHMCS_ACCESS_KEY = 'access!key@2026#(x)';
const BLESTA_USER = 'hostdir-sync';
const BLESTA_KEY = 'bk_5f1e2d3c4b5a69788796a5b4c3d2e1f0';
const HOSTBILL_ID = 'hb-api-id-7c1d';
const HOSTBILL_KEY = 'hb-api-key-0e9b8a7f6d5c';
const SECRETS = [
  WHMCS_SECRET,
  WHMCS_ACCESS_KEY,
  BLESTA_KEY,
  HOSTBILL_KEY,
  Buffer.from(`${BLESTA_USER}:${BLESTA_KEY}`).toString('base64'),
];

const WHMCS_MAP = JSON.stringify({
  groups: { '1': 'web_shared', '2': 'vps_cloud', '3': 'game_minecraft' },
  products: { '13': null },
});
const BLESTA_MAP = JSON.stringify({
  groups: { '4': 'vps_cloud', '6': 'web_shared', Security: 'ssl', '8': 'game_other' },
});
const HOSTBILL_MAP = JSON.stringify({ groups: { 'OnApp tests': 'vps_cloud', '6': 'web_shared', '148': 'vps_cloud' } });

/** Everything any command printed in this file, checked for credentials at the end. */
const printed: string[] = [];
const systems: FakeBillingSystem[] = [];

async function fake(handler: Handler): Promise<FakeBillingSystem> {
  const system = await startFakeBillingSystem(handler);
  systems.push(system);
  return system;
}

afterEach(async () => {
  for (const system of systems.splice(0)) await system.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function hostdir(env: Record<string, string>, files: Record<string, string> = {}) {
  const written = new Map<string, string>();
  const waits: number[] = [];
  const ctx: CliContext = {
    env,
    readFile: (path) => files[path],
    fetch: globalThis.fetch,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    writeFile: (path, text) => written.set(path, text),
    sleep: async (ms) => {
      waits.push(ms);
    },
  };
  let out: string[] = [];
  let err: string[] = [];
  return {
    written,
    waits,
    run: async (...args: string[]): Promise<Run> => {
      out = [];
      err = [];
      const code = await run(args, ctx);
      const result = { code, stdout: out.join(''), stderr: err.join('') };
      printed.push(result.stdout, result.stderr);
      return result;
    },
  };
}

const whmcsEnv = { WHMCS_IDENTIFIER, WHMCS_SECRET };

describe('hostdir import whmcs', () => {
  it('calls GetProducts with the credentials from the environment and prints the mapped catalogue', async () => {
    const system = await fake(
      whmcs({ identifier: WHMCS_IDENTIFIER, secret: WHMCS_SECRET, getProducts: () => WHMCS_CATALOGUE }),
    );
    const cli = hostdir(whmcsEnv, { 'categories.json': WHMCS_MAP });
    const result = await cli.run(
      'import',
      'whmcs',
      '--whmcs-url',
      system.url,
      '--map',
      'categories.json',
      '--currency',
      'usd',
    );
    expect(result.code, result.stderr).toBe(0);

    expect(system.requests).toHaveLength(1);
    const [request] = system.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/includes/api.php');
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(request!.form)).toEqual({
      action: 'GetProducts',
      identifier: WHMCS_IDENTIFIER,
      secret: WHMCS_SECRET,
      responsetype: 'json',
    });

    // The catalogue printed is the mapping's (test/connectors/whmcs.test.ts checks it field by field).
    const mapped = catalogueFrom(whmcsProducts(WHMCS_CATALOGUE), {
      map: parseCategoryMap(WHMCS_MAP, 'categories.json'),
      mapFile: 'categories.json',
      currency: 'USD',
      system: 'WHMCS',
    });
    expect(JSON.parse(result.stdout)).toEqual({ products: mapped.products });
    expect(mapped.products.map((p) => [p.external_id, p.category])).toEqual([
      ['1', 'web_shared'],
      ['2', 'web_shared'],
      ['7', 'vps_cloud'],
      ['9', 'vps_cloud'],
      ['10', 'vps_cloud'],
      ['11', 'vps_cloud'],
      ['12', 'game_minecraft'],
    ]);
    expect(result.stderr).toBe(
      `Read 8 products from WHMCS at ${system.url}/includes/api.php: 7 in the catalogue (prices in USD), 1 left out.\n` +
        '  left out 13 "Legacy Rust server": categories.json leaves it out ("products" → "13" is null)\n' +
        '  without specs (2): 9 "Trial VPS", 12 "Minecraft 4 GB"\n' +
        '  without a location (5): 1 "Starter", 2 "Business & Co", 7 "Serveur Dédié Ü — 東京", 9 "Trial VPS", 12 "Minecraft 4 GB"\n' +
        '  (filters by RAM, CPU, disk or country cannot find these; docs/connectors.md says where specs and locations are read)\n',
    );
  });

  it('names the first ten products without specs or a location and counts the rest; says nothing when all have both', async () => {
    const plain = WHMCS_GETPRODUCTS_EXAMPLE.products.product[0]!;
    const bare = Array.from({ length: 12 }, (_, i) => ({
      ...plain,
      pid: i + 1,
      name: `Plan ${i + 1}`,
      description: '',
    }));
    const rich = { ...plain, pid: 13, name: 'Stated', description: '4 GB RAM<br>Location: Warsaw' };
    let products = [...bare, rich];
    const system = await fake(
      whmcs({
        identifier: WHMCS_IDENTIFIER,
        secret: WHMCS_SECRET,
        getProducts: () => ({ result: 'success', totalresults: products.length, products: { product: products } }),
      }),
    );
    const cli = hostdir(whmcsEnv, { 'm.json': '{"groups": {"1": "vps_cloud"}}' });
    const result = await cli.run('import', 'whmcs', '--whmcs-url', system.url, '--map', 'm.json');
    expect(result.code, result.stderr).toBe(0);
    const named = bare
      .slice(0, 10)
      .map((p) => `${p.pid} "${p.name}"`)
      .join(', ');
    expect(result.stderr.split('\n').slice(1)).toEqual([
      `  without specs (12): ${named}, and 2 more`,
      `  without a location (12): ${named}, and 2 more`,
      '  (filters by RAM, CPU, disk or country cannot find these; docs/connectors.md says where specs and locations are read)',
      '',
    ]);
    expect(JSON.parse(result.stdout).products.at(-1)).toMatchObject({
      external_id: '13',
      specs: { RAM: '4 GB' },
      datacenter_locations: ['Warsaw'],
    });

    products = [rich];
    const stated = await cli.run('import', 'whmcs', '--whmcs-url', system.url, '--map', 'm.json');
    expect(stated.stderr).toBe(
      `Read 1 product from WHMCS at ${system.url}/includes/api.php: 1 in the catalogue (prices in USD).\n`,
    );
  });

  it('writes the catalogue with --out, and finds WHMCS from WHMCS_URL under a path or at includes/api.php', async () => {
    const system = await fake(
      whmcs({ identifier: WHMCS_IDENTIFIER, secret: WHMCS_SECRET, getProducts: () => WHMCS_GETPRODUCTS_EXAMPLE }),
    );
    const map = { 'm.json': '{"modules": {"cpanel": "web_shared"}}' };
    const cli = hostdir({ ...whmcsEnv, WHMCS_URL: `${system.url}/` }, map);
    const result = await cli.run('import', 'whmcs', '--map', 'm.json', '--out', 'catalogue.json');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/Wrote 1 product to catalogue\.json\.\n$/);
    const written = JSON.parse(cli.written.get('catalogue.json')!);
    expect(written.products.map((p: { external_id: string; name: string }) => [p.external_id, p.name])).toEqual([
      ['1', 'Best Hosting Plan'],
    ]);
    // What --out writes is what goes to standard output without it.
    const printed = await hostdir({ ...whmcsEnv, WHMCS_URL: system.url }, map).run(
      'import',
      'whmcs',
      '--map',
      'm.json',
    );
    expect(JSON.parse(printed.stdout)).toEqual(written);
    for (const url of [`${system.url}/includes/api.php`, `${system.url}/includes/api.php/?x=1#y`]) {
      expect((await hostdir(whmcsEnv, map).run('import', 'whmcs', '--whmcs-url', url, '--map', 'm.json')).code).toBe(0);
    }
    expect(system.requests.map((r) => r.path)).toEqual([
      '/includes/api.php',
      '/includes/api.php',
      '/includes/api.php',
      '/includes/api.php',
    ]);
  });

  it('exits 5 naming the refusal and what to check when WHMCS refuses the credentials', async () => {
    const system = await fake(
      whmcs({ identifier: WHMCS_IDENTIFIER, secret: 'another secret', getProducts: () => WHMCS_CATALOGUE }),
    );
    const result = await hostdir(whmcsEnv, { 'categories.json': WHMCS_MAP }).run(
      'import',
      'whmcs',
      '--whmcs-url',
      system.url,
      '--map',
      'categories.json',
    );
    expect(result).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: WHMCS refused GetProducts: Authentication Failed\n' +
        '  check WHMCS_IDENTIFIER and WHMCS_SECRET: API credentials are made under System Settings > Manage API Credentials, and their role must allow GetProducts\n',
    });
  });

  it('exits 5 when the address is not allowed, and passes with the access key', async () => {
    const system = await fake(
      whmcs({
        identifier: WHMCS_IDENTIFIER,
        secret: WHMCS_SECRET,
        accessKey: WHMCS_ACCESS_KEY,
        ipAllowed: () => false,
        getProducts: () => WHMCS_CATALOGUE,
      }),
    );
    const files = { 'categories.json': WHMCS_MAP };
    const refused = await hostdir(whmcsEnv, files).run(
      'import',
      'whmcs',
      '--whmcs-url',
      system.url,
      '--map',
      'categories.json',
      '--currency',
      'EUR',
    );
    expect(refused.code).toBe(5);
    expect(refused.stderr).toBe(
      'error: WHMCS refused GetProducts: Invalid IP 127.0.0.1\n' +
        "  allow this machine's address under System Settings > General Settings > Security > API IP Access Restriction, " +
        "or set WHMCS_ACCESS_KEY to the $api_access_key of WHMCS's configuration.php\n",
    );
    const allowed = await hostdir({ ...whmcsEnv, WHMCS_ACCESS_KEY }, files).run(
      'import',
      'whmcs',
      '--whmcs-url',
      system.url,
      '--map',
      'categories.json',
      '--currency',
      'EUR',
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(system.requests[1]!.form.get('accesskey')).toBe(WHMCS_ACCESS_KEY);
  });

  it('exits 5 on an HTML page instead of JSON, quoting it without the credentials it echoes', async () => {
    // A web application firewall's page that shows the request it blocked.
    const system = await fake((request, response) =>
      sendHtml(
        response,
        403,
        `<html><head><title>Blocked</title></head><body><h1>Request blocked</h1><pre>${request.body}</pre></body></html>`,
      ),
    );
    const result = await hostdir(whmcsEnv).run('import', 'whmcs', '--whmcs-url', system.url);
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: WHMCS at ${system.url}/includes/api\\.php answered HTTP 403 \\(text/html; charset=utf-8\\) with something that is not JSON, ` +
          'not GetProducts\' \\{"result": …\\} \\(is the address your WHMCS, whose API is includes/api\\.php\\?\\): "Request blocked action=GetProducts&identifier=\\[redacted\\]&secret=\\[redacted\\]',
      ),
    );
    for (const secret of SECRETS) expect(result.stderr).not.toContain(secret);
  });

  it('tries again after 5xx answers, and exits 5 once they go on', async () => {
    let calls = 0;
    const answer = whmcs({
      identifier: WHMCS_IDENTIFIER,
      secret: WHMCS_SECRET,
      getProducts: () => WHMCS_GETPRODUCTS_EXAMPLE,
    });
    const flaky = await fake((request, response) =>
      ++calls <= 2 ? sendHtml(response, 503, 'Service Unavailable') : answer(request, response),
    );
    const cli = hostdir(whmcsEnv, { 'm.json': '{"groups": {"1": "web_shared"}}' });
    const recovered = await cli.run('import', 'whmcs', '--whmcs-url', flaky.url, '--map', 'm.json');
    expect(recovered.code, recovered.stderr).toBe(0);
    expect(recovered.stderr).toContain(
      `WHMCS at ${flaky.url}/includes/api.php answered HTTP 503; trying again in 1 s\n`,
    );
    expect(recovered.stderr).toContain('answered HTTP 503; trying again in 2 s\n');
    expect(cli.waits).toEqual([1000, 2000]);

    const broken = await fake((_request, response) => sendHtml(response, 500, '<h1>Internal Server Error</h1>'));
    const failed = await hostdir(whmcsEnv).run('import', 'whmcs', '--whmcs-url', broken.url);
    expect(failed.code).toBe(5);
    expect(failed.stderr).toMatch(
      /error: WHMCS at .* answered HTTP 500 \(text\/html; charset=utf-8\) with something that is not JSON.*: "Internal Server Error"\n$/,
    );
    expect(broken.requests).toHaveLength(3);
  });

  it('gives up on a WHMCS that does not answer within HOSTDIR_BILLING_TIMEOUT_SECONDS, and on one that is not there', async () => {
    const hanging: ServerResponse[] = [];
    const silent = await fake((_request, response) => {
      hanging.push(response);
    });
    const cli = hostdir({ ...whmcsEnv, HOSTDIR_BILLING_TIMEOUT_SECONDS: '1' });
    const timedOut = await cli.run('import', 'whmcs', '--whmcs-url', silent.url);
    expect(timedOut.code).toBe(5);
    expect(timedOut.stderr).toContain(
      `error: no answer from WHMCS at ${silent.url}/includes/api.php after 3 attempts: no answer within 1 s\n`,
    );
    expect(silent.requests).toHaveLength(3);
    for (const response of hanging) response.destroy();

    const gone = await fake(() => {});
    const address = gone.url;
    await gone.close();
    const unreachable = await hostdir(whmcsEnv).run('import', 'whmcs', '--whmcs-url', address);
    expect(unreachable.code).toBe(5);
    expect(unreachable.stderr).toMatch(/error: no answer from WHMCS at .* after 3 attempts: ECONNREFUSED/);

    expect(
      (
        await hostdir({ ...whmcsEnv, HOSTDIR_BILLING_TIMEOUT_SECONDS: '0' }).run(
          'import',
          'whmcs',
          '--whmcs-url',
          address,
        )
      ).code,
    ).toBe(2);
  });

  it('does not follow a redirect, so the credentials go nowhere else', async () => {
    const system = await fake((_request, response) => {
      response.writeHead(301, { location: 'https://user:pw@billing.example.com/includes/api.php?token=1' });
      response.end();
    });
    const result = await hostdir(whmcsEnv).run('import', 'whmcs', '--whmcs-url', system.url);
    expect(result.code).toBe(5);
    expect(result.stderr).toBe(
      `error: WHMCS at ${system.url}/includes/api.php redirects (HTTP 301) to https://billing.example.com/includes/api.php; give that address instead\n`,
    );
    expect(system.requests).toHaveLength(1);
  });

  it('refuses an answer that holds fewer products than it counts', async () => {
    const system = await fake(
      whmcs({
        identifier: WHMCS_IDENTIFIER,
        secret: WHMCS_SECRET,
        getProducts: () => ({ ...WHMCS_CATALOGUE, totalresults: 40 }),
      }),
    );
    const result = await hostdir(whmcsEnv, { 'categories.json': WHMCS_MAP }).run(
      'import',
      'whmcs',
      '--whmcs-url',
      system.url,
      '--map',
      'categories.json',
    );
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      /^error: WHMCS reported 40 products \(totalresults\) but its answer holds 8; .* nothing is synced\n$/,
    );
  });

  it('exits 2 naming the groups without a category, the currency to choose, or a broken map, before any push', async () => {
    const system = await fake(
      whmcs({ identifier: WHMCS_IDENTIFIER, secret: WHMCS_SECRET, getProducts: () => WHMCS_CATALOGUE }),
    );
    const unmapped = await hostdir(whmcsEnv).run('import', 'whmcs', '--whmcs-url', system.url);
    expect(unmapped.code).toBe(2);
    expect(unmapped.stderr).toContain(
      'error: the category map (--map categories.json) gives no category to 8 products:\n',
    );
    expect(unmapped.stderr).toContain('  group 1 (module cpanel): 1 "Starter", 2 "Business & Co"\n');
    expect(unmapped.stderr).toContain(
      '"groups": {\n    "1": "<category>",\n    "2": "<category>",\n    "3": "<category>"\n  }',
    );

    const currency = await hostdir(whmcsEnv, { 'categories.json': WHMCS_MAP }).run(
      'import',
      'whmcs',
      '--whmcs-url',
      system.url,
      '--map',
      'categories.json',
    );
    expect(currency).toMatchObject({
      code: 2,
      stderr:
        'error: WHMCS prices its products in EUR, USD; choose the currency to list with --currency (e.g. --currency EUR)\n',
    });

    const before = system.requests.length;
    const broken = await hostdir(whmcsEnv, { 'bad.json': '{"groups": {"1": 3}}' }).run(
      'import',
      'whmcs',
      '--whmcs-url',
      system.url,
      '--map',
      'bad.json',
    );
    expect(broken).toMatchObject({
      code: 2,
      stderr: expect.stringContaining(
        'bad.json is not a usable category map:\n  "groups" → "1": must be a category slug',
      ),
    });
    const missing = await hostdir(whmcsEnv).run('import', 'whmcs', '--whmcs-url', system.url, '--map', 'nowhere.json');
    expect(missing).toMatchObject({ code: 2, stderr: 'error: no such file: nowhere.json\n' });
    expect(system.requests.length).toBe(before);
  });

  it('takes credentials only from the environment, and says which are missing', async () => {
    const noSecret = await hostdir({ WHMCS_IDENTIFIER }).run(
      'import',
      'whmcs',
      '--whmcs-url',
      'https://billing.example.com',
    );
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(
      /^error: WHMCS's API credentials come from the environment: set WHMCS_SECRET \(they are never taken from the command line/,
    );
    const onCommandLine = await hostdir({}).run(
      'import',
      'whmcs',
      '--whmcs-url',
      'https://billing.example.com',
      '--secret',
      WHMCS_SECRET,
    );
    expect(onCommandLine.code).toBe(2);
    const noUrl = await hostdir(whmcsEnv).run('import', 'whmcs');
    expect(noUrl).toMatchObject({
      code: 2,
      stderr: 'error: where is WHMCS? pass --whmcs-url https://billing.example.com or set WHMCS_URL\n',
    });
    const badUrl = await hostdir(whmcsEnv).run('import', 'whmcs', '--whmcs-url', 'ftp://billing.example.com');
    expect(badUrl).toMatchObject({
      code: 2,
      stderr: 'error: --whmcs-url must be an http or https address, not ftp:\n',
    });
    const otherSystem = await hostdir(whmcsEnv).run('import', 'whmcs', '--blesta-url', 'https://billing.example.com');
    expect(otherSystem).toMatchObject({
      code: 2,
      stderr: 'error: --blesta-url is for Blesta, but the catalogue comes from WHMCS\n',
    });
    const unknown = await hostdir(whmcsEnv).run('import', 'odoo');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /'odoo' is invalid for argument 'system'. Allowed choices are whmcs, blesta, hostbill/,
    );
  });
});

describe('hostdir import --dry-run (before anything is sent)', () => {
  const whmcsEnv = { WHMCS_IDENTIFIER, WHMCS_SECRET };

  it('needs an API key before it reads the billing system, and takes --key, --json and --no-wait only with --dry-run', async () => {
    const system = await fake(
      whmcs({ identifier: WHMCS_IDENTIFIER, secret: WHMCS_SECRET, getProducts: () => WHMCS_CATALOGUE }),
    );
    const files = { 'categories.json': WHMCS_MAP };
    const noKey = await hostdir(whmcsEnv, files).run(
      'import',
      'whmcs',
      '--whmcs-url',
      system.url,
      '--map',
      'categories.json',
      '--dry-run',
    );
    expect(noKey).toMatchObject({ code: 2, stderr: 'error: no API key: pass --key rk_… or set HOSTDIR_API_KEY\n' });
    for (const extra of [['--json'], ['--key', 'rk_x'], ['--no-wait']]) {
      const alone = await hostdir(whmcsEnv, files).run(
        'import',
        'whmcs',
        '--whmcs-url',
        system.url,
        '--map',
        'categories.json',
        ...extra,
      );
      expect(alone).toMatchObject({
        code: 2,
        stderr: 'error: --key, --json and --no-wait apply to import --dry-run\n',
      });
    }
    expect(system.requests).toEqual([]);
  });
});

describe('hostdir push --from (before anything is sent)', () => {
  it('wants a file or --from, not both, and the API key before asking the billing system', async () => {
    const system = await fake(
      whmcs({ identifier: WHMCS_IDENTIFIER, secret: WHMCS_SECRET, getProducts: () => WHMCS_CATALOGUE }),
    );
    const cli = hostdir(whmcsEnv, { 'c.json': '[]' });
    expect(await cli.run('push')).toMatchObject({
      code: 2,
      stderr: 'error: give a catalogue file, or --from whmcs|blesta|hostbill to read it from your billing system\n',
    });
    expect(await cli.run('push', 'c.json', '--from', 'whmcs', '--key', 'rk_x')).toMatchObject({
      code: 2,
      stderr: 'error: give either a catalogue file or --from, not both\n',
    });
    expect(await cli.run('push', 'c.json', '--map', 'm.json', '--key', 'rk_x')).toMatchObject({
      code: 2,
      stderr: 'error: --map and --currency apply to a catalogue read with --from\n',
    });
    expect(await cli.run('push', '--from', 'whmcs', '--whmcs-url', system.url)).toMatchObject({
      code: 2,
      stderr: 'error: no API key: pass --key rk_… or set HOSTDIR_API_KEY\n',
    });
    expect(system.requests).toHaveLength(0);
  });
});

describe('hostdir import blesta', () => {
  const blestaEnv = { BLESTA_API_USER: BLESTA_USER, BLESTA_API_KEY: BLESTA_KEY };

  it("reads every page of active packages, each package's pricing and the options of those with option groups, with the credentials in headers", async () => {
    const system = await fake(
      blesta({
        user: BLESTA_USER,
        key: BLESTA_KEY,
        packages: () => BLESTA_PACKAGES,
        options: (id) => BLESTA_PACKAGE_OPTIONS[id] ?? [],
        pageSize: 3,
      }),
    );
    const result = await hostdir(blestaEnv, { 'map.json': BLESTA_MAP }).run(
      'import',
      'blesta',
      '--blesta-url',
      `${system.url}/`,
      '--map',
      'map.json',
      '--currency',
      'EUR',
    );
    expect(result.code, result.stderr).toBe(0);
    const asked = system.requests.map((r) => `${r.path}?${r.query}`);
    expect(asked.slice(0, 3)).toEqual([
      '/api/packages/getList.json?page=1&status=active',
      '/api/packages/getList.json?page=2&status=active',
      '/api/packages/getList.json?page=3&status=active',
    ]);
    // Packages are read four at a time; only package 3 has option groups.
    expect(asked.slice(3).sort()).toEqual([
      '/api/package_options/getByPackageId.json?package_id=3',
      '/api/packages/get.json?package_id=3',
      '/api/packages/get.json?package_id=5',
      '/api/packages/get.json?package_id=8',
      '/api/packages/get.json?package_id=9',
    ]);
    for (const request of system.requests) {
      expect(request.method).toBe('GET');
      expect(request.headers['blesta-api-user']).toBe(BLESTA_USER);
      expect(request.headers['blesta-api-key']).toBe(BLESTA_KEY);
      expect(request.headers.authorization).toBe(
        `Basic ${Buffer.from(`${BLESTA_USER}:${BLESTA_KEY}`).toString('base64')}`,
      );
    }
    const { products } = JSON.parse(result.stdout);
    expect(
      products.map((p: { external_id: string; category: string; price?: number }) => [
        p.external_id,
        p.category,
        p.price,
      ]),
    ).toEqual([
      ['3', 'vps_cloud', 6.5],
      ['5', 'web_shared', 4],
      ['8', 'ssl', undefined],
      ['9', 'game_other', 8],
    ]);
    expect(products[0]).toMatchObject({
      specs: { Storage: '80 GB NVMe', vCPU: '2', RAM: '4 GB' },
      datacenter_locations: ['Frankfurt, Germany', 'Helsinki, Finland'],
    });
    expect(result.stderr).toBe(
      `Read 4 products from Blesta at ${system.url}/api: 4 in the catalogue (prices in EUR).\n` +
        '  warning: 3: "1 year" names the same period as "12 month"; only "12 month" is listed\n' +
        '  without specs (3): 5 "Große Webseite ✓", 8 "SSL certificate", 9 "Game server"\n' +
        '  without a location (3): 5 "Große Webseite ✓", 8 "SSL certificate", 9 "Game server"\n' +
        '  (filters by RAM, CPU, disk or country cannot find these; docs/connectors.md says where specs and locations are read)\n',
    );
  });

  it('exits 5 on refused credentials, a wrong address, maintenance, and paging that repeats itself', async () => {
    const system = await fake(
      blesta({ user: BLESTA_USER, key: 'other', packages: () => BLESTA_PACKAGES, pageSize: 3 }),
    );
    const refused = await hostdir(blestaEnv).run('import', 'blesta', '--blesta-url', system.url);
    expect(refused).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: Blesta refused packages/getList: The authorization details given appear to be invalid. (HTTP 401)\n' +
        '  check BLESTA_API_USER and BLESTA_API_KEY (Settings > System > API Access)\n',
    });

    const elsewhere = await fake(
      blesta({ user: BLESTA_USER, key: BLESTA_KEY, packages: () => BLESTA_PACKAGES, pageSize: 3 }),
    );
    const wrongPath = await hostdir(blestaEnv).run('import', 'blesta', '--blesta-url', `${elsewhere.url}/billing`);
    expect(wrongPath.code).toBe(5);
    expect(wrongPath.stderr).toBe(
      'error: Blesta refused packages/getList: The requested resource does not exist. (HTTP 404)\n' +
        "  is the address right? Blesta's API is at its install path's api/, or index.php/api/ without .htaccess\n",
    );

    const maintenance = await fake((_request, response) => sendJson(response, 503, BLESTA_ERRORS.maintenance.body));
    const down = await hostdir(blestaEnv).run('import', 'blesta', '--blesta-url', maintenance.url);
    expect(down.code).toBe(5);
    expect(down.stderr).toContain(
      'The requested resource is currently unavailable due to maintenance. (HTTP 503)\n  Blesta is in maintenance mode\n',
    );
    expect(maintenance.requests).toHaveLength(3);

    const stuck = await fake(
      blesta({ user: BLESTA_USER, key: BLESTA_KEY, packages: () => BLESTA_PACKAGES, pageSize: 3, ignoresPage: true }),
    );
    const repeated = await hostdir(blestaEnv, { 'map.json': BLESTA_MAP }).run(
      'import',
      'blesta',
      '--blesta-url',
      stuck.url,
      '--map',
      'map.json',
    );
    expect(repeated.code).toBe(5);
    expect(repeated.stderr).toBe(
      'error: Blesta listed package 3 again on page 2: it does not page packages/getList as documented, so the whole list cannot be read and nothing is synced\n',
    );
  });
});

describe('hostdir import hostbill', () => {
  const hostbillEnv = { HOSTBILL_API_ID: HOSTBILL_ID, HOSTBILL_API_KEY: HOSTBILL_KEY };

  it('reads the order pages, their sub-pages and products, in the currency HostBill prices in', async () => {
    const system = await fake(
      hostbill({
        apiId: HOSTBILL_ID,
        apiKey: HOSTBILL_KEY,
        orderPages: () => ({
          ...HOSTBILL_GETORDERPAGES_EXAMPLE,
          categories: [
            ...HOSTBILL_GETORDERPAGES_EXAMPLE.categories,
            { id: '147', name: 'Cloud locations', contains: 'categories', visible: '1' },
          ],
        }),
        subcategories: () => ({
          success: true,
          subcategories: [{ id: '148', parent_id: '147', contains: 'products', name: 'Paris', visible: '1' }],
        }),
        products: (id) =>
          id === '43'
            ? HOSTBILL_GETPRODUCTS_EXAMPLE
            : id === '6'
              ? HOSTBILL_SHARED_PRODUCTS
              : {
                  success: true,
                  products: {
                    '501': {
                      id: '501',
                      name: 'Paris VPS',
                      paytype: 'Regular',
                      m: '9.00',
                      a: '90.00',
                      visible: '1',
                      ptype: 'onappcloud',
                    },
                  },
                },
      }),
    );
    const result = await hostdir(hostbillEnv, { 'map.json': HOSTBILL_MAP }).run(
      'import',
      'hostbill',
      '--hostbill-url',
      system.url,
      '--map',
      'map.json',
      '--currency',
      'EUR',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(
      system.requests.map((r) => [
        r.path,
        r.form.get('call'),
        r.form.get('id'),
        r.form.get('api_id'),
        r.form.get('api_key'),
      ]),
    ).toEqual([
      ['/admin/api.php', 'getOrderPages', null, HOSTBILL_ID, HOSTBILL_KEY],
      ['/admin/api.php', 'getSubCategories', '147', HOSTBILL_ID, HOSTBILL_KEY],
      ['/admin/api.php', 'getProducts', '43', HOSTBILL_ID, HOSTBILL_KEY],
      ['/admin/api.php', 'getProducts', '6', HOSTBILL_ID, HOSTBILL_KEY],
      ['/admin/api.php', 'getProducts', '148', HOSTBILL_ID, HOSTBILL_KEY],
    ]);
    const { products } = JSON.parse(result.stdout);
    expect(
      products.map((p: { external_id: string; category: string; price: number; currency: string }) => [
        p.external_id,
        p.category,
        p.price,
        p.currency,
      ]),
    ).toEqual([
      ['235', 'vps_cloud', 20, 'EUR'],
      ['236', 'vps_cloud', 0, 'EUR'],
      ['301', 'web_shared', 3, 'EUR'],
      ['501', 'vps_cloud', 9, 'EUR'],
    ]);
    expect(products[2]).toMatchObject({
      specs: { 'SSD storage': '5 GB', website: '1' },
      datacenter_locations: ['Amsterdam, Netherlands'],
    });
    expect(result.stderr).toContain('  left out 302 "Hosting Archive": archived in HostBill\n');
    expect(result.stderr).toContain(
      '  without specs (3): 235 "VPS-512-w-sliders", 236 "VPS-1024-w-sliders", 501 "Paris VPS"\n',
    );
  });

  it('exits 5 when HostBill refuses the credentials', async () => {
    const system = await fake(
      hostbill({
        apiId: HOSTBILL_ID,
        apiKey: 'other',
        orderPages: () => HOSTBILL_GETORDERPAGES_EXAMPLE,
        products: () => ({}),
      }),
    );
    const result = await hostdir(hostbillEnv).run('import', 'hostbill', '--hostbill-url', system.url);
    expect(result).toEqual({
      code: 5,
      stdout: '',
      stderr:
        'error: HostBill refused getOrderPages: API authentication failed\n' +
        "  check HOSTBILL_API_ID and HOSTBILL_API_KEY, the key's allowed IP addresses, and that it may call getOrderPages, getSubCategories and getProducts (Settings > System Settings > Security settings > API Access)\n",
    });
  });
});

// Last: every command in this file has printed by now, on every error path above.
describe('credentials', () => {
  it('appear in nothing any command printed', () => {
    expect(printed.length).toBeGreaterThan(40);
    for (const text of printed) for (const secret of SECRETS) expect(text).not.toContain(secret);
  });
});
