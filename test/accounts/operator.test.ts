// The operator's side, through the hostdir command against a real server: the providers waiting for approval,
// approve and reject, and a provider's audit record. The domain is proved by a TXT record on the test's DNS server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type CliContext } from '../../src/cli/main.js';
import { call } from '../support/api.js';
import { TestDnsServer } from '../support/dns-server.js';
import { FormClient, latestLink } from '../support/provider-browser.js';
import { STORES, startInProcessServer, type ServerUnderTest } from '../support/server.js';

describe.each(STORES)('approving providers with the hostdir command, on the %s store', (store) => {
  const dns = new TestDnsServer();
  let server: ServerUnderTest;

  async function hostdir(...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const ctx: CliContext = {
      env: { HOSTDIR_URL: server.url, ADMIN_TOKEN: server.adminToken },
      readFile: () => undefined,
      fetch,
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
    };
    const code = await run(args, ctx);
    return { code, stdout: out.join(''), stderr: err.join('') };
  }

  /** Signs up, publishes the token as a TXT record and has the domain checked. */
  async function proved(email: string, name: string, domain: string): Promise<FormClient> {
    const client = new FormClient(server.url);
    await client.get('/providers/join');
    await client.post('/providers/join', { email, name, website: domain });
    const link = new URL(await latestLink(server.dataDir, email));
    await client.get(`${link.pathname}${link.search}`);
    await client.post('/providers/link', { token: link.searchParams.get('token')! });
    const token = /id="domain-token">([^<]+)</.exec((await client.get('/providers/dashboard')).text)![1]!;
    dns.set(`_hostdir.${domain}`, { txt: [token] });
    await client.post('/providers/domain/check');
    return client;
  }

  beforeAll(async () => {
    await dns.start();
    server = await startInProcessServer(store, {
      env: { REQUIRE_APPROVAL: 'on' },
      config: { domainProofDnsServers: [dns.address] },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await dns.stop();
  });

  it('lists the waiting providers, approves one and rejects another; the audit shows both', async () => {
    expect((await hostdir('hosts', 'pending')).stdout).toContain('No host waits for approval.');
    const north = await proved('ops@north.example', 'North Racks', 'north.example');
    await proved('ops@south.example', 'South Metal', 'south.example');
    const pending = await hostdir('hosts', 'pending', '--json');
    expect(pending.code).toBe(0);
    expect(JSON.parse(pending.stdout).hosts.map((h: { domain: string }) => h.domain)).toEqual([
      'north.example',
      'south.example',
    ]);
    expect((await hostdir('hosts', 'pending')).stdout).toMatch(/north-racks\s+North Racks\s+north\.example/);

    expect(await hostdir('hosts', 'approve', 'north-racks')).toMatchObject({
      code: 0,
      stdout: 'Host north-racks is active.\n',
    });
    expect(await hostdir('hosts', 'reject', 'south-metal')).toMatchObject({
      code: 0,
      stdout: 'Host south-metal is suspended.\n',
    });
    expect((await hostdir('hosts', 'approve', 'north-racks')).code).toBe(1);
    expect((await hostdir('hosts', 'approve', 'nobody')).code).toBe(1);
    expect((await call(server, 'GET', '/api/v1/directory/hosts/north-racks')).status).toBe(200);
    expect((await call(server, 'GET', '/api/v1/directory/hosts/south-metal')).status).toBe(404);

    const audit = await hostdir('hosts', 'audit', 'north-racks');
    expect(audit.code).toBe(0);
    for (const action of ['signed up', 'signed in', 'domain proved', 'approval requested', 'approved'])
      expect(audit.stdout).toContain(action);
    expect(audit.stdout).toContain('operator');
    expect((await north.get('/providers/audit')).text).toContain('approved');
    expect((await hostdir('hosts', 'audit', 'south-metal')).stdout).toContain('rejected');
  });
});
