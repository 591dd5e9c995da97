// The domain proof against a DNS server and a web server the test runs: the token must be published by the domain
// itself, the fetch refuses private addresses (unless allowed) and redirects to other sites, and is bounded in time.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDomain, WELL_KNOWN_PATH } from '../../src/accounts/domain-proof.js';
import { TestDnsServer } from '../support/dns-server.js';

const ALPHA_TOKEN = 'hostdir-verification=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const BETA_TOKEN = 'hostdir-verification=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

describe('the domain proof', () => {
  const dns = new TestDnsServer();
  /** what each Host serves at the well-known path: a body, or a redirect */
  const files = new Map<string, { body?: string; location?: string; hang?: boolean }>();
  let web: Server;
  let port: number;
  const options = () => ({ allowPrivate: true, dnsServers: [dns.address], httpPort: port });

  beforeAll(async () => {
    await dns.start();
    web = createServer((request, response) => {
      const host = (request.headers.host ?? '').split(':')[0]!;
      const file = files.get(host);
      if (!file || request.url !== WELL_KNOWN_PATH) return response.writeHead(404).end();
      if (file.hang) return; // never answers
      if (file.location) return response.writeHead(302, { location: file.location }).end();
      response.writeHead(200, { 'content-type': 'text/plain' }).end(file.body);
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    port = (web.address() as AddressInfo).port;
    for (const name of ['alpha.example', 'www.alpha.example', 'beta.example', 'slow.example', 'jump.example'])
      dns.set(name, { a: ['127.0.0.1'] });
  });
  afterAll(async () => {
    web.closeAllConnections();
    await new Promise((resolve) => web.close(resolve));
    await dns.stop();
  });

  it('is proved by the TXT record at _hostdir.<domain>', async () => {
    dns.set('_hostdir.alpha.example', { txt: ['v=spf1 -all', ALPHA_TOKEN] });
    expect(await checkDomain('alpha.example', ALPHA_TOKEN, options())).toEqual({ verified: true, how: 'dns' });
    dns.records.delete('_hostdir.alpha.example');
  });

  it('is proved by the well-known file, also after a redirect to www. of the same domain', async () => {
    files.set('alpha.example', { location: `http://www.alpha.example:${port}${WELL_KNOWN_PATH}` });
    files.set('www.alpha.example', { body: `${ALPHA_TOKEN}\n` });
    expect(await checkDomain('alpha.example', ALPHA_TOKEN, options())).toEqual({ verified: true, how: 'https' });
    files.clear();
  });

  it('is not proved by a token published on another domain', async () => {
    dns.set('_hostdir.beta.example', { txt: [ALPHA_TOKEN] });
    files.set('beta.example', { body: ALPHA_TOKEN });
    files.set('alpha.example', { body: BETA_TOKEN });
    const check = await checkDomain('alpha.example', ALPHA_TOKEN, options());
    expect(check.verified).toBe(false);
    expect(check).toMatchObject({ why: expect.stringContaining('no TXT record at _hostdir.alpha.example') });
    expect(check).toMatchObject({ why: expect.stringContaining('does not hold the token') });
    files.clear();
  });

  it("is not proved for a stranger's domain that publishes nothing", async () => {
    const check = await checkDomain('beta.example', BETA_TOKEN, options());
    expect(check.verified).toBe(false);
  });

  it('follows no redirect to another site, a private address included', async () => {
    files.set('jump.example', { location: `http://127.0.0.1:${port}${WELL_KNOWN_PATH}` });
    files.set('127.0.0.1', { body: ALPHA_TOKEN });
    const check = await checkDomain('jump.example', ALPHA_TOKEN, options());
    expect(check).toMatchObject({
      verified: false,
      why: expect.stringContaining('redirects to another site (127.0.0.1)'),
    });
    files.clear();
  });

  it('refuses a domain whose name resolves to a loopback address unless private targets are allowed', async () => {
    files.set('alpha.example', { body: ALPHA_TOKEN });
    const check = await checkDomain('alpha.example', ALPHA_TOKEN, { ...options(), allowPrivate: false });
    expect(check).toMatchObject({ verified: false, why: expect.stringContaining('no public address') });
    expect(await checkDomain('alpha.example', ALPHA_TOKEN, options())).toEqual({ verified: true, how: 'https' });
    files.clear();
  });

  it('gives up on a server that does not answer, within its time', async () => {
    files.set('slow.example', { hang: true });
    const check = await checkDomain('slow.example', ALPHA_TOKEN, { ...options(), timeoutMs: 300 });
    expect(check).toMatchObject({ verified: false, why: expect.stringContaining('no answer within 300 ms') });
    files.clear();
  });
});
