// The dashboard over HTTP: the domain proved, a key created and rotated, a refused sync shown with each error as the
// API reported it, the listing public; the operator's approvals; and one provider's person never reaching another's.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN_PATH } from '../../src/accounts/domain-proof.js';
import { admin, call, product, sync } from '../support/api.js';
import { TestDnsServer } from '../support/dns-server.js';
import { FormClient, latestLink } from '../support/provider-browser.js';
import { STORES, startInProcessServer, type ServerUnderTest } from '../support/server.js';

/** Signs up and signs in by the mailed link; the client holds the session. */
async function joined(server: ServerUnderTest, email: string, name: string, domain: string): Promise<FormClient> {
  const client = new FormClient(server.url);
  await client.get('/providers/join');
  expect((await client.post('/providers/join', { email, name, website: domain })).status).toBe(200);
  const link = new URL(await latestLink(server.dataDir, email));
  await client.get(`${link.pathname}${link.search}`);
  expect((await client.post('/providers/link', { token: link.searchParams.get('token')! })).status).toBe(303);
  return client;
}

const tokenOn = (page: string) => /id="domain-token">([^<]+)</.exec(page)![1]!;
const newKeyOn = (page: string) => /id="new-key">(rk_[0-9a-f]{64})</.exec(page)![1]!;

describe.each(STORES)('the dashboard, on the %s store', (store) => {
  const dns = new TestDnsServer();
  const published = new Map<string, string>();
  let web: Server;
  let server: ServerUnderTest;
  let approving: ServerUnderTest;

  beforeAll(async () => {
    await dns.start();
    web = createServer((request, response) => {
      const body = published.get((request.headers.host ?? '').split(':')[0]!);
      if (request.url !== WELL_KNOWN_PATH || body === undefined) return response.writeHead(404).end();
      response.end(body);
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    const port = (web.address() as AddressInfo).port;
    for (const name of ['alpha.example', 'beta.example', 'gamma.example']) dns.set(name, { a: ['127.0.0.1'] });
    const config = { domainProofDnsServers: [dns.address], domainProofHttpPort: port };
    server = await startInProcessServer(store, {
      env: { ALLOW_PRIVATE_TARGETS: 'on', SYNC_MAX_PER_WINDOW: '10' },
      config,
    });
    approving = await startInProcessServer(store, {
      env: { ALLOW_PRIVATE_TARGETS: 'on', REQUIRE_APPROVAL: 'on' },
      config,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await approving?.stop();
    web?.closeAllConnections();
    await new Promise((resolve) => web?.close(resolve));
    await dns.stop();
  });

  let alpha: FormClient;
  let alphaKey: string;

  it('proves the domain by its well-known file and lists the provider at once', async () => {
    alpha = await joined(server, 'ops@alpha.example', 'Alpha Hosting', 'alpha.example');
    let page = await alpha.get('/providers/dashboard');
    const token = tokenOn(page.text);
    // before the proof: no key may be created
    expect((await alpha.post('/providers/keys', { name: 'billing' })).status).toBe(409);
    await alpha.get('/providers/dashboard');
    expect((await alpha.post('/providers/domain/check')).status).toBe(303);
    page = await alpha.get('/providers/dashboard');
    expect(page.text).toContain('answered 404');
    published.set('alpha.example', `${token}\n`);
    await alpha.post('/providers/domain/check');
    page = await alpha.get('/providers/dashboard');
    expect(page.text, page.text.slice(page.text.indexOf('<main'))).toContain('alpha.example is proved');
    expect(page.text).toContain('Your listing is public');
    expect((await call(server, 'GET', '/api/v1/directory/hosts/alpha-hosting')).status).toBe(200);
  });

  it('creates a key shown once, which syncs; a refused sync is shown with each error as the API reported it', async () => {
    await alpha.get('/providers/keys');
    const created = await alpha.post('/providers/keys', { name: 'billing' });
    expect(created.status).toBe(201);
    alphaKey = newKeyOn(created.text);
    const keys = await alpha.get('/providers/keys');
    expect(keys.text).not.toContain(alphaKey);
    expect(keys.text).toContain(`rk_${alphaKey.slice(3, 11)}`);

    const refused = await sync(server, alphaKey, [product('vps-1', { category: 'no_such_category' })]);
    expect(refused.status).toBe(422);
    const overview = await alpha.get('/providers/dashboard');
    expect(overview.text).toContain('Your last sync failed');
    const syncs = await alpha.get('/providers/syncs');
    for (const error of refused.body.errors as { pointer: string; detail: string }[]) {
      expect(syncs.text).toContain(error.pointer);
      expect(syncs.text).toContain(error.detail.replaceAll('"', '&quot;').slice(0, 40));
    }

    const fixed = await sync(server, alphaKey, [product('vps-1')]);
    expect(fixed.status).toBe(200);
    expect((await alpha.get('/providers/dashboard')).text).not.toContain('Your last sync failed');
    const run = await alpha.get(`/providers/syncs/${fixed.body.sync_id}`);
    expect(run.text).toContain('Created (1)');
    expect(run.text).toContain('vps-1');
    const preview = await alpha.get('/providers/preview');
    expect(preview.text).toContain('Cloud VPS vps-1');
    expect(preview.text).toContain('$9.99');
    // The directory's own cards, as its listing shows them.
    expect(preview.text).toContain('<ul class="grid">');
    expect(preview.text).toMatch(/<a[^>]*href="\/products\/prd_[^"]+"[^>]*>Cloud VPS vps-1<\/a>/);
  });

  it('rotates: two keys valid at once, a third refused, the revoked one answered 403 KEY_REVOKED', async () => {
    await alpha.get('/providers/keys');
    const second = newKeyOn((await alpha.post('/providers/keys', { name: 'rotation' })).text);
    expect((await alpha.post('/providers/keys', { name: 'third' })).status).toBe(409);
    const keys = await admin(server, 'GET', '/hosts/alpha-hosting/keys');
    const first = (keys.body.keys as { id: string; prefix: string }[]).find((k) =>
      alphaKey.startsWith(`rk_${k.prefix}`),
    )!;
    await alpha.get('/providers/keys');
    expect((await alpha.post(`/providers/keys/${first.id}/revoke`)).status).toBe(303);
    expect((await call(server, 'GET', '/api/v1/sync/runs', { token: alphaKey })).status).toBe(403);
    expect((await call(server, 'GET', '/api/v1/sync/runs', { token: second })).status).toBe(200);
    alphaKey = second;
  });

  it('edits the profile here, refusing a bad template and changing nothing', async () => {
    await alpha.get('/providers/profile');
    const bad = await alpha.post('/providers/profile', { order_url_template: 'http://alpha.example/order' });
    expect(bad.status).toBe(422);
    await alpha.get('/providers/profile');
    const good = await alpha.post('/providers/profile', {
      website: 'https://alpha.example',
      country: 'de',
      description: 'Servers in Frankfurt',
      order_url_template: 'https://alpha.example/order?pid={external_id}',
    });
    expect(good.status).toBe(200);
    const profile = await call(server, 'GET', '/api/v1/profile', { token: alphaKey });
    expect(profile.body.profile).toMatchObject({
      country: 'DE',
      order_url_template: 'https://alpha.example/order?pid={external_id}',
    });
    const audit = await alpha.get('/providers/audit');
    for (const action of ['signed up', 'signed in', 'domain proved', 'key created', 'key revoked', 'profile changed'])
      expect(audit.text).toContain(action);
    const operator = await admin(server, 'GET', '/hosts/alpha-hosting/audit');
    expect((operator.body.events as { action: string }[]).map((e) => e.action)).toContain('key revoked');
  });

  it("never shows one provider's person another's keys, runs, people or audit", async () => {
    const beta = await joined(server, 'ops@beta.example', 'Beta Servers', 'beta.example');
    const alphaKeys = await admin(server, 'GET', '/hosts/alpha-hosting/keys');
    const alphaKeyId = (alphaKeys.body.keys as { id: string; status: string }[]).find((k) => k.status === 'active')!.id;
    const runs = await call(server, 'GET', '/api/v1/sync/runs', { token: alphaKey });
    const runId = runs.body.runs[0].sync_id as string;
    await beta.get('/providers/keys');
    expect((await beta.post(`/providers/keys/${alphaKeyId}/revoke`)).status).toBe(404);
    expect((await call(server, 'GET', '/api/v1/sync/runs', { token: alphaKey })).status).toBe(200);
    expect((await beta.get(`/providers/syncs/${runId}`)).status).toBe(404);
    const sections = [
      '/providers/keys',
      '/providers/syncs',
      '/providers/audit',
      '/providers/people',
      '/providers/preview',
    ];
    for (const section of sections) {
      const page = await beta.get(section);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('alpha.example');
      expect(page.text).not.toContain(alphaKeyId);
      expect(page.text).not.toContain('vps-1');
    }
  });

  it('invites a person, who signs in; removing them ends their session', async () => {
    await alpha.get('/providers/people');
    expect((await alpha.post('/providers/people', { email: 'dev@alpha.example' })).status).toBe(303);
    const dev = new FormClient(server.url);
    await dev.get('/providers/sign-in');
    await dev.post('/providers/sign-in', { email: 'dev@alpha.example' });
    const link = new URL(await latestLink(server.dataDir, 'dev@alpha.example'));
    await dev.get(`${link.pathname}${link.search}`);
    expect((await dev.post('/providers/link', { token: link.searchParams.get('token')! })).status).toBe(303);
    expect((await dev.get('/providers/keys')).status).toBe(200);
    const people = await alpha.get('/providers/people');
    const devId = /action="\/providers\/people\/(per_[0-9A-Z]+)\/remove"/.exec(people.text)![1]!;
    expect((await alpha.post(`/providers/people/${devId}/remove`)).status).toBe(303);
    expect((await dev.get('/providers/keys')).status).toBe(303);
  });

  it('waits for the operator when approval is required: pending, approved, listed', async () => {
    const gamma = await joined(approving, 'ops@gamma.example', 'Gamma Cloudworks', 'gamma.example');
    published.set('gamma.example', tokenOn((await gamma.get('/providers/dashboard')).text));
    await gamma.post('/providers/domain/check');
    expect((await gamma.get('/providers/dashboard')).text).toContain('approves new providers');
    expect((await call(approving, 'GET', '/api/v1/directory/hosts/gamma-cloudworks')).status).toBe(404);
    const pending = await admin(approving, 'GET', '/approvals');
    expect(pending.body.hosts).toEqual([
      expect.objectContaining({ slug: 'gamma-cloudworks', domain: 'gamma.example' }),
    ]);
    expect((await admin(approving, 'POST', '/hosts/gamma-cloudworks/approve')).body.host.status).toBe('active');
    expect((await admin(approving, 'POST', '/hosts/gamma-cloudworks/approve')).status).toBe(409);
    expect((await call(approving, 'GET', '/api/v1/directory/hosts/gamma-cloudworks')).status).toBe(200);
    expect((await gamma.get('/providers/audit')).text).toContain('approved');
  });
});
