// `hostdir push --from` and `hostdir import` end to end: the built command reads local servers that answer as
// WHMCS, Blesta and HostBill document, and syncs into the real hostdir server; the catalogue is applied with the specs
// and locations the billing system states (so the directory's RAM and country filters find those plans), a dry run
// changes nothing, a second run is all `unchanged`, and no credential appears in any output or in the server's log.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BLESTA_PACKAGE_OPTIONS,
  BLESTA_PACKAGES,
  HOSTBILL_GETORDERPAGES_EXAMPLE,
  HOSTBILL_GETPRODUCTS_EXAMPLE,
  HOSTBILL_SHARED_PRODUCTS,
  WHMCS_CATALOGUE,
} from '../connectors/fixtures.js';
import { call, onboard, type Onboarded } from '../support/api.js';
import { blesta, type FakeBillingSystem, hostbill, startFakeBillingSystem, whmcs } from '../support/billing-systems.js';
import { CLI, startServer, type TestServer } from '../support/server.js';

const WHMCS_IDENTIFIER = 'whmcs-identifier-3e1f';
const WHMCS_SECRET = 'whmcs-secret-9b7d5f3a1c';
const BLESTA_USER = 'hostdir';
const BLESTA_KEY = 'blesta-key-4c2e0a8f6d';
const HOSTBILL_ID = 'hostbill-id-77aa';
const HOSTBILL_KEY = 'hostbill-key-1d3f5b7e9a';
const SECRETS = [
  WHMCS_SECRET,
  BLESTA_KEY,
  HOSTBILL_KEY,
  Buffer.from(`${BLESTA_USER}:${BLESTA_KEY}`).toString('base64'),
];

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

const printed: string[] = [];

function hostdir(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        printed.push(stdout, stderr);
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('hostdir push --from a billing system, end to end', () => {
  let server: TestServer;
  let dir: string;
  const systems: FakeBillingSystem[] = [];

  beforeAll(async () => {
    // Several applied syncs of one provider follow each other here; the window is the server's to enforce, and
    // its own tests do.
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '100' } });
    dir = await mkdtemp(path.join(tmpdir(), 'hostdir-billing-'));
  });

  afterAll(async () => {
    for (const system of systems) await system.close();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function file(name: string, content: unknown): Promise<string> {
    const at = path.join(dir, name);
    await writeFile(at, typeof content === 'string' ? content : JSON.stringify(content));
    return at;
  }

  /** A provider on Blesta (a local server answering as Blesta documents): its host, category map, --out file and env. */
  async function blestaProvider(name: string, files: string) {
    const host = await onboard(server, name, { default_currency: 'EUR' });
    const system = await startFakeBillingSystem(
      blesta({
        user: BLESTA_USER,
        key: BLESTA_KEY,
        packages: () => BLESTA_PACKAGES,
        options: (id) => BLESTA_PACKAGE_OPTIONS[id] ?? [],
        pageSize: 2,
      }),
    );
    systems.push(system);
    const mapFile = await file(`${files}-categories.json`, {
      groups: { '4': 'vps_cloud', '6': 'web_shared', Security: 'ssl', '8': 'game_other' },
    });
    const out = path.join(dir, `${files}-catalogue.json`);
    const env = {
      BLESTA_API_USER: BLESTA_USER,
      BLESTA_API_KEY: BLESTA_KEY,
      BLESTA_URL: system.url,
      HOSTDIR_API_KEY: host.key,
      HOSTDIR_URL: server.url,
    };
    return { host, mapFile, out, env };
  }

  async function listing(host: Onboarded) {
    const answer = await call(server, 'GET', '/api/v1/products?status=all&limit=1000', { token: host.key });
    expect(answer.status).toBe(200);
    return Object.fromEntries((answer.body.products as Record<string, any>[]).map((p) => [p.external_id, p]));
  }

  it('WHMCS: the dry run changes nothing, the push applies, the same again is unchanged, a product left out is deactivated', async () => {
    const host = await onboard(server, 'Whmcs Hosting');
    let catalogue = structuredClone(WHMCS_CATALOGUE);
    const system = await startFakeBillingSystem(
      whmcs({ identifier: WHMCS_IDENTIFIER, secret: WHMCS_SECRET, getProducts: () => catalogue }),
    );
    systems.push(system);
    const map = {
      groups: { '1': 'web_shared', '2': 'vps_cloud', '3': 'game_minecraft' },
      products: { '13': null } as Record<string, string | null>,
    };
    const mapFile = await file('whmcs-categories.json', map);
    const env = { WHMCS_IDENTIFIER, WHMCS_SECRET, HOSTDIR_API_KEY: host.key, HOSTDIR_URL: server.url };
    const push = (...extra: string[]) =>
      hostdir(
        ['push', '--from', 'whmcs', '--whmcs-url', system.url, '--map', mapFile, '--currency', 'USD', ...extra],
        env,
      );

    const dryRun = await push('--dry-run', '--json');
    expect(dryRun.code, dryRun.stderr).toBe(0);
    const planned = JSON.parse(dryRun.stdout);
    expect(planned).toMatchObject({ dry_run: true, host: host.slug, summary: { received: 7, created: 7 } });
    // With --json, what was read from WHMCS comes beside the server's answer.
    expect(planned.import).toEqual({
      system: 'whmcs',
      read: 8,
      listed: 7,
      currency: 'USD',
      left_out: [
        { id: '13', name: 'Legacy Rust server', reason: `${mapFile} leaves it out ("products" → "13" is null)` },
      ],
      without_specs: [
        { id: '9', name: 'Trial VPS' },
        { id: '12', name: 'Minecraft 4 GB' },
      ],
      without_location: ['1', '2', '7', '9', '12'].map((id) => ({ id, name: expect.any(String) })),
      warnings: [],
    });
    expect(dryRun.stderr).toContain(
      `Read 8 products from WHMCS at ${system.url}/includes/api.php: 7 in the catalogue (prices in USD), 1 left out.\n`,
    );
    expect(dryRun.stderr).toContain('  without specs (2): 9 "Trial VPS", 12 "Minecraft 4 GB"\n');
    expect(await listing(host)).toEqual({});

    const applied = await push();
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(new RegExp(`^Synced: ${host.slug}, syn_`));
    expect(applied.stdout).toMatch(/created\s+7/);

    const products = await listing(host);
    expect(Object.keys(products).sort()).toEqual(['1', '10', '11', '12', '2', '7', '9']);
    expect(products['1']).toMatchObject({
      name: 'Starter',
      category: 'web_shared',
      status: 'active',
      price: 4.99,
      currency: 'USD',
      setup_fee: 5,
      description: '10 GB NVMe & free SSL\n- 1 website\n- Daily backups',
      pricing_tiers: [
        { period: 'Monthly', price: 4.99, canonical_period: 'monthly' },
        { period: 'Annually', price: 49.9, canonical_period: 'annually' },
        { period: 'Biennially', price: 89, canonical_period: 'biennially' },
      ],
    });
    expect(products['7']).toMatchObject({
      name: 'Serveur Dédié Ü — 東京',
      category: 'vps_cloud',
      price: 89,
      description: 'CPU: 8 cores\nRAM: 32\u202fGB',
    });
    expect(products['9']).toMatchObject({ name: 'Trial VPS', price: 0, pricing_tiers: null });
    expect(products['12']).toMatchObject({
      price: null,
      pricing_tiers: [{ period: 'One Time', price: 15, canonical_period: 'one_time' }],
      setup_fee: 2.5,
    });
    expect(products['10']).toMatchObject({
      specs: { RAM: '4 GB', vCPU: '2', SSD: '80 GB' },
      datacenter_locations: ['Frankfurt, Germany'],
    });
    expect(products['11']).toMatchObject({
      specs: { Disk: '160 GB NVMe', RAM: '8 GB', 'vCPU cores': '4' },
      datacenter_locations: ['Frankfurt, Germany', 'New York, United States', 'Singapore'],
    });

    // What the billing system states is what a visitor's filters find.
    const found = async (query: string) => {
      const answer = await call(server, 'GET', `/api/v1/directory/products?host=${host.slug}&sort=name&${query}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return (answer.body.products as { name: string }[]).map((p) => p.name);
    };
    expect(await found('min_ram_gb=4&country=DE')).toEqual(['Cloud VPS L', 'Cloud VPS M']);
    expect(await found('country=US')).toEqual(['Cloud VPS L']);
    expect(await found('min_ram_gb=16')).toEqual(['Serveur Dédié Ü — 東京']);
    expect(await found('min_cpu_cores=4&disk_type=nvme')).toEqual(['Cloud VPS L']);

    const again = await push('--json');
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      dry_run: false,
      summary: { received: 7, created: 0, updated: 0, unchanged: 7, deactivated: 0 },
    });

    // The provider stops selling product 7 (a null in its map) and changes a price in WHMCS.
    map.products['7'] = null;
    await writeFile(mapFile, JSON.stringify(map));
    catalogue = structuredClone(WHMCS_CATALOGUE);
    (catalogue.products.product[0]!.pricing as Record<string, Record<string, string>>).USD!.monthly = '5.49';
    const changed = await push('--json');
    expect(changed.code, changed.stderr).toBe(0);
    const answer = JSON.parse(changed.stdout);
    expect(answer.summary).toMatchObject({ received: 6, updated: 1, unchanged: 5, deactivated: 1 });
    expect(answer.deactivated).toEqual([{ external_id: '7', id: products['7'].id }]);
    expect((await listing(host))['1']).toMatchObject({ price: 5.49 });
  });

  it('Blesta: import writes the catalogue, push sends that file, and push --from then finds it all unchanged', async () => {
    const { host, mapFile, out, env } = await blestaProvider('Blesta Hosting', 'blesta');

    const imported = await hostdir(['import', 'blesta', '--map', mapFile, '--currency', 'EUR', '--out', out], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('Wrote 4 products to');
    const written = JSON.parse(await readFile(out, 'utf8'));
    expect(written.products.map((p: { external_id: string }) => p.external_id)).toEqual(['3', '5', '8', '9']);

    const pushed = await hostdir(['push', out, '--json'], env);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(JSON.parse(pushed.stdout).summary).toMatchObject({ received: 4, created: 4 });
    const products = await listing(host);
    expect(products['5']).toMatchObject({
      name: 'Große Webseite ✓',
      category: 'web_shared',
      price: 4,
      currency: 'EUR',
      setup_fee: 3,
      pricing_tiers: [
        { period: '3 month', price: 12, canonical_period: 'quarterly' },
        { period: '1 year', price: 40, canonical_period: 'annually' },
      ],
    });
    expect(products['3']).toMatchObject({
      specs: { Storage: '80 GB NVMe', vCPU: '2', RAM: '4 GB' },
      datacenter_locations: ['Frankfurt, Germany', 'Helsinki, Finland'],
    });

    const fromBlesta = await hostdir(
      ['push', '--from', 'blesta', '--map', mapFile, '--currency', 'EUR', '--json'],
      env,
    );
    expect(fromBlesta.code, fromBlesta.stderr).toBe(0);
    expect(JSON.parse(fromBlesta.stdout).summary).toMatchObject({ received: 4, unchanged: 4, created: 0, updated: 0 });
  });

  it('import --dry-run writes the catalogue, shows the plan the server made of it, and changes nothing', async () => {
    const { host, mapFile, out, env } = await blestaProvider('Blesta Dry Run', 'blesta-dry-run');
    const importing = ['import', 'blesta', '--map', mapFile, '--currency', 'EUR'];

    const shown = await hostdir([...importing, '--out', out, '--dry-run'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toContain(`Wrote 4 products to ${out}.`);
    expect(JSON.parse(await readFile(out, 'utf8')).products.map((p: { external_id: string }) => p.external_id)).toEqual(
      ['3', '5', '8', '9'],
    );
    expect(shown.stdout).toMatch(new RegExp(`^Dry run \\(nothing changed\\): ${host.slug}, syn_`));
    expect(shown.stdout).toMatch(/created\s+4/);
    expect(await listing(host)).toEqual({});

    // Without --out, standard output is the plan's alone; the server recorded dry runs, and no product.
    const asJson = await hostdir([...importing, '--dry-run', '--json'], env);
    expect(asJson.code, asJson.stderr).toBe(0);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      dry_run: true,
      host: host.slug,
      summary: { received: 4, created: 4 },
    });
    expect(await listing(host)).toEqual({});
    const runs = await call(server, 'GET', '/api/v1/sync/runs', { token: host.key });
    expect(runs.status).toBe(200);
    expect((runs.body.runs as { dry_run: boolean }[]).map((run) => run.dry_run)).toEqual([true, true]);
  });

  it('HostBill: push --from, then again all unchanged', async () => {
    const host = await onboard(server, 'HostBill Hosting', { default_currency: 'USD' });
    const system = await startFakeBillingSystem(
      hostbill({
        apiId: HOSTBILL_ID,
        apiKey: HOSTBILL_KEY,
        orderPages: () => HOSTBILL_GETORDERPAGES_EXAMPLE,
        products: (id) => (id === '43' ? HOSTBILL_GETPRODUCTS_EXAMPLE : HOSTBILL_SHARED_PRODUCTS),
      }),
    );
    systems.push(system);
    const mapFile = await file('hostbill-categories.json', { groups: { '43': 'vps_cloud', '6': 'web_shared' } });
    const env = {
      HOSTBILL_API_ID: HOSTBILL_ID,
      HOSTBILL_API_KEY: HOSTBILL_KEY,
      HOSTDIR_API_KEY: host.key,
      HOSTDIR_URL: server.url,
    };
    const push = () =>
      hostdir(['push', '--from', 'hostbill', '--hostbill-url', system.url, '--map', mapFile, '--json'], env);

    const first = await push();
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).summary).toMatchObject({ received: 3, created: 3 });
    // HostBill's answer names no currency: the prices are taken in the host's default currency.
    expect(await listing(host)).toMatchObject({
      '235': { price: 20, currency: 'USD' },
      '236': { price: 0 },
      '301': {
        price: 3,
        setup_fee: 1,
        specs: { 'SSD storage': '5 GB', website: '1' },
        datacenter_locations: ['Amsterdam, Netherlands'],
      },
    });
    const second = await push();
    expect(JSON.parse(second.stdout).summary).toMatchObject({ received: 3, unchanged: 3 });
  });

  it('exits 5 and sends nothing when the billing system refuses, 2 when a group has no category', async () => {
    const host = await onboard(server, 'Refused Hosting');
    const system = await startFakeBillingSystem(
      whmcs({ identifier: WHMCS_IDENTIFIER, secret: 'rotated', getProducts: () => WHMCS_CATALOGUE }),
    );
    systems.push(system);
    const env = {
      WHMCS_IDENTIFIER,
      WHMCS_SECRET,
      WHMCS_URL: system.url,
      HOSTDIR_API_KEY: host.key,
      HOSTDIR_URL: server.url,
    };
    const refused = await hostdir(['push', '--from', 'whmcs'], env);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/^error: WHMCS refused GetProducts: Authentication Failed\n/);

    const working = await startFakeBillingSystem(
      whmcs({ identifier: WHMCS_IDENTIFIER, secret: WHMCS_SECRET, getProducts: () => WHMCS_CATALOGUE }),
    );
    systems.push(working);
    const unmapped = await hostdir(
      ['push', '--from', 'whmcs', '--map', await file('partial.json', { groups: { '1': 'web_shared' } })],
      { ...env, WHMCS_URL: working.url },
    );
    expect(unmapped.code).toBe(2);
    expect(unmapped.stderr).toContain('gives no category to 6 products:\n  group 2 (module proxmox)');

    const runs = await call(server, 'GET', '/api/v1/sync/runs', { token: host.key });
    expect(runs.body.runs).toEqual([]);

    // Refused by the server (a category it does not have): with --json, its problem and what was read from WHMCS.
    const unknown = await file('unknown.json', {
      groups: { '1': 'web_unknown', '2': 'vps_cloud', '3': 'game_minecraft' },
    });
    const invalid = await hostdir(['push', '--from', 'whmcs', '--map', unknown, '--currency', 'USD', '--json'], {
      ...env,
      WHMCS_URL: working.url,
    });
    expect(invalid.code).toBe(1);
    const problem = JSON.parse(invalid.stdout);
    expect(problem.errors).toContainEqual(expect.objectContaining({ pointer: '/products/0/category' }));
    expect(problem.import).toMatchObject({
      system: 'whmcs',
      read: 8,
      listed: 8,
      left_out: [],
      without_specs: [{ id: '9' }, { id: '12' }, { id: '13' }],
    });
  });

  // Last: every command above has printed by now.
  it("puts no credential in any command's output or in the server's log", () => {
    expect(printed.length).toBe(2 * 14); // stdout and stderr of each of the 14 commands above
    for (const text of [...printed, server.output()]) for (const secret of SECRETS) expect(text).not.toContain(secret);
  });
});
