// A provider joins on its own: sign-up, the mailed confirmation, sign-in by a one-time link, sessions and CSRF.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormClient, latestLink, mails } from '../support/provider-browser.js';
import { STORES, startInProcessServer, type ServerUnderTest } from '../support/server.js';

async function join(server: ServerUnderTest, email: string, name: string, website: string) {
  const client = new FormClient(server.url);
  await client.get('/providers/join');
  const page = await client.post('/providers/join', { email, name, website });
  return { client, page };
}

async function signInBy(client: FormClient, server: ServerUnderTest, email: string) {
  const link = new URL(await latestLink(server.dataDir, email));
  const shown = await client.get(`${link.pathname}${link.search}`);
  expect(shown.status).toBe(200);
  return client.post('/providers/link', { token: link.searchParams.get('token')! });
}

describe.each(STORES)('joining, on the %s store', (store) => {
  let server: ServerUnderTest;

  beforeAll(async () => {
    server = await startInProcessServer(store);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('signs up, mails a confirmation link, and the link opens the dashboard in a new session', async () => {
    const { client, page } = await join(server, 'Ops@Alpha.example', 'Alpha Hosting', 'https://www.alpha.example/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Check your mail');
    const before = client.cookies.get('hostdir_session');
    const signedIn = await signInBy(client, server, 'ops@alpha.example');
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe('/providers/dashboard');
    const cookie = signedIn.headers.getSetCookie().find((line) => line.startsWith('hostdir_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\/providers/);
    expect(client.cookies.get('hostdir_session')).not.toBe(before);
    const dashboard = await client.get('/providers/dashboard');
    expect(dashboard.status).toBe(200);
    expect(dashboard.text).toContain('Alpha Hosting');
    expect(dashboard.text).toContain('_hostdir.alpha.example');
    // not listed before its domain is proved
    expect((await fetch(`${server.url}/api/v1/directory/hosts/alpha-hosting`)).status).toBe(404);
  });

  it('uses a link once only', async () => {
    const client = new FormClient(server.url);
    const link = new URL(await latestLink(server.dataDir, 'ops@alpha.example'));
    await client.get(`${link.pathname}${link.search}`);
    const again = await client.post('/providers/link', { token: link.searchParams.get('token')! });
    expect(again.status).toBe(400);
    expect((await client.get('/providers/dashboard')).status).toBe(303);
  });

  it('refuses a look-alike name, a domain already taken and a bad address, changing nothing', async () => {
    const before = (await mails(server.dataDir)).length;
    const alike = await join(server, 'x@beta.example', 'A1pha Hosting', 'beta.example');
    expect(alike.page.status).toBe(422);
    expect(alike.page.text).toContain('too close to');
    const taken = await join(server, 'y@other.example', 'Other Company', 'https://alpha.example');
    expect(taken.page.status).toBe(422);
    expect(taken.page.text).toContain('alpha.example belongs to a provider');
    const bad = await join(server, 'not-an-address', 'Gamma Co', 'localhost');
    expect(bad.page.status).toBe(422);
    expect(bad.page.text).toContain('Enter an email address');
    expect(bad.page.text).toContain('Enter your website');
    expect((await mails(server.dataDir)).length).toBe(before);
  });

  it('refuses every form sent without its CSRF token', async () => {
    const client = new FormClient(server.url);
    await client.get('/providers/join');
    const page = await client.request('POST', '/providers/join', {
      email: 'z@zeta.example',
      name: 'Zeta Servers',
      website: 'zeta.example',
    });
    expect(page.status).toBe(403);
  });

  it('signs out: the session cookie no longer opens the dashboard, even if kept', async () => {
    const client = new FormClient(server.url);
    await client.get('/providers/sign-in');
    expect((await client.post('/providers/sign-in', { email: 'ops@alpha.example' })).status).toBe(200);
    expect((await signInBy(client, server, 'ops@alpha.example')).status).toBe(303);
    const kept = client.cookieHeader();
    await client.get('/providers/dashboard');
    expect((await client.post('/providers/sign-out')).status).toBe(200);
    const replay = await fetch(`${server.url}/providers/dashboard`, { headers: { cookie: kept }, redirect: 'manual' });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/providers/sign-in');
    expect((await client.get('/providers')).location).toBe('/providers/dashboard');
  });
});
