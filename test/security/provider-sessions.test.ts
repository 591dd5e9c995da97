// Providers' sessions under attack: a session planted before sign-in (fixation), forms sent from elsewhere (CSRF),
// guessed sign-in links and mailed links asked for in bulk (rate limits), and secrets in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormClient, latestLink, mails } from '../support/provider-browser.js';
import { describeOnPostgres, startInProcessServer, STORES, type ServerUnderTest } from '../support/server.js';

async function signedIn(server: ServerUnderTest, email: string, name: string, website: string) {
  const client = new FormClient(server.url);
  await client.get('/providers/join');
  expect((await client.post('/providers/join', { email, name, website })).status).toBe(200);
  const link = new URL(await latestLink(server.dataDir, email));
  await client.get(`${link.pathname}${link.search}`);
  expect((await client.post('/providers/link', { token: link.searchParams.get('token')! })).status).toBe(303);
  return client;
}

describe.each(STORES)("providers' sessions, on the %s store", (store) => {
  let server: ServerUnderTest;

  beforeAll(async () => {
    server = await startInProcessServer(store);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('never signs in the session an attacker planted before the victim used their link (fixation)', async () => {
    await signedIn(server, 'ops@fix.example', 'Fixation Test', 'fix.example');
    const attacker = new FormClient(server.url);
    await attacker.get('/providers/sign-in');
    const planted = attacker.cookieHeader();
    expect(planted).toContain('hostdir_session=');
    // The victim's browser carries the planted cookie when it follows its sign-in link.
    const victim = new FormClient(server.url);
    victim.cookies = new Map(attacker.cookies);
    await victim.get('/providers/sign-in');
    await victim.post('/providers/sign-in', { email: 'ops@fix.example' });
    const link = new URL(await latestLink(server.dataDir, 'ops@fix.example'));
    await victim.get(`${link.pathname}${link.search}`);
    expect((await victim.post('/providers/link', { token: link.searchParams.get('token')! })).status).toBe(303);
    expect(victim.cookieHeader()).not.toBe(planted);
    expect((await victim.get('/providers/dashboard')).status).toBe(200);
    const replay = await fetch(`${server.url}/providers/dashboard`, {
      headers: { cookie: planted },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/providers/sign-in');
  });

  it('refuses every form sent without its CSRF token, or with another session’s, and changes nothing', async () => {
    const owner = await signedIn(server, 'ops@csrf.example', 'Csrf Test', 'csrf.example');
    const other = new FormClient(server.url);
    await other.get('/providers/sign-in');
    const foreignToken = other.csrf!;
    const page = await owner.get('/providers/people');
    const selfId = /per_[0-9A-Z]{26}/.exec(page.text)?.[0] ?? 'per_00000000000000000000000000';
    const forms: [string, Record<string, string>][] = [
      ['/providers/join', { email: 'a@b.example', name: 'Forged Name', website: 'forged.example' }],
      ['/providers/sign-in', { email: 'ops@csrf.example' }],
      ['/providers/link', { token: `lnk_${'0'.repeat(64)}` }],
      ['/providers/sign-out', {}],
      ['/providers/domain/check', {}],
      ['/providers/keys', { name: 'forged' }],
      ['/providers/keys/key_x/revoke', {}],
      ['/providers/profile', { website: 'https://forged.example' }],
      ['/providers/people', { email: 'forged@csrf.example' }],
      [`/providers/people/${selfId}/remove`, {}],
    ];
    const sentBefore = (await mails(server.dataDir)).length;
    for (const [action, form] of forms) {
      expect((await owner.request('POST', action, form)).status, `${action} without a token`).toBe(403);
      expect((await owner.request('POST', action, { ...form, _csrf: foreignToken })).status, action).toBe(403);
    }
    expect((await mails(server.dataDir)).length).toBe(sentBefore);
    const keys = await owner.get('/providers/keys');
    expect(keys.text).toContain('No key yet');
    expect((await owner.get('/providers/people')).text).not.toContain('forged@csrf.example');
    expect((await owner.get('/providers/profile')).text).not.toContain('forged.example');
    expect((await owner.get('/providers/dashboard')).status).toBe(200);
  });

  it('answers 429 to links asked for in bulk for one address, from any number of clients', async () => {
    await signedIn(server, 'ops@bulk.example', 'Bulk Test', 'bulk.example');
    const sentBefore = (await mails(server.dataDir)).length;
    const asked: number[] = [];
    for (let k = 0; k < 6; k++) {
      const client = new FormClient(server.url);
      await client.get('/providers/sign-in');
      const page = await client.post('/providers/sign-in', { email: 'ops@bulk.example' });
      asked.push(page.status);
      if (page.status === 429) expect(page.text).toContain('were mailed to this address within the hour');
    }
    // one link went with the sign-up, four more are allowed within the hour
    expect(asked).toEqual([200, 200, 200, 200, 429, 429]);
    expect((await mails(server.dataDir)).length).toBe(sentBefore + 4);
  });

  it('answers 429 to a client guessing sign-in links', async () => {
    const guesser = new FormClient(server.url);
    await guesser.get('/providers/sign-in');
    const statuses: number[] = [];
    for (let k = 0; k < 25; k++) {
      const token = `lnk_${k.toString(16).padStart(64, '0')}`;
      statuses.push((await guesser.post('/providers/link', { token })).status);
    }
    expect(statuses.slice(0, 5)).toEqual([400, 400, 400, 400, 400]);
    expect(statuses.at(-1)).toBe(429);
  });

  it('keeps no link or session in the log, nor in the database but as digests', async () => {
    const link = await latestLink(server.dataDir, 'ops@bulk.example');
    const token = new URL(link).searchParams.get('token')!;
    const client = new FormClient(server.url);
    await client.get(new URL(link).pathname + new URL(link).search);
    expect(server.output()).not.toContain(token);
    expect(server.output()).toContain('lnk_[redacted]');
  });
});

describe('the session cookie of a directory served over TLS', () => {
  let server: ServerUnderTest;

  beforeAll(async () => {
    server = await startInProcessServer(STORES[0]!, { env: { PUBLIC_URL: 'https://directory.example' } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is Secure, HttpOnly and SameSite=Lax, and mailed links name the public address', async () => {
    const client = new FormClient(server.url);
    const page = await client.get('/providers/join');
    const cookie = page.headers.getSetCookie().find((line) => line.startsWith('hostdir_session='))!;
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    await client.post('/providers/join', { email: 'ops@tls.example', name: 'Tls Test', website: 'tls.example' });
    expect(await latestLink(server.dataDir, 'ops@tls.example')).toMatch(
      /^https:\/\/directory\.example\/providers\/link\?token=lnk_/,
    );
  });
});

describeOnPostgres('links and sessions past their time', () => {
  let server: ServerUnderTest;

  beforeAll(async () => {
    server = await startInProcessServer('postgres');
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('refuses an expired link, and ends an expired session', async () => {
    const client = await signedIn(server, 'ops@late.example', 'Late Test', 'late.example');
    expect((await client.get('/providers/dashboard')).status).toBe(200);
    await server.sql(`UPDATE person_sessions SET expires_at = now() - interval '1 second'`);
    expect((await client.get('/providers/dashboard')).status).toBe(303);

    await client.get('/providers/sign-in');
    await client.post('/providers/sign-in', { email: 'ops@late.example' });
    const link = new URL(await latestLink(server.dataDir, 'ops@late.example'));
    await server.sql(`UPDATE person_links SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`);
    await client.get(`${link.pathname}${link.search}`);
    expect((await client.post('/providers/link', { token: link.searchParams.get('token')! })).status).toBe(400);
    expect((await client.get('/providers/dashboard')).status).toBe(303);
    const stored = await server.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM person_links WHERE digest = sha256(convert_to($1, 'UTF8'))`,
      [link.searchParams.get('token')],
    );
    expect(stored[0]!.n).toBe(1);
  });
});
