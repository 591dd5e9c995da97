// A provider's whole way in, in a real headless Chromium: sign up, confirm the address from the mailed link, publish
// the domain token on a web server the test runs (found through a DNS server it runs too: the domain proof's
// domainProofDnsServers), the domain proved, a key created, a sync refused and shown on the dashboard's first screen,
// a fixed sync, the listing public. axe-core finds nothing on any page of the dashboard, at a phone's and a desktop's
// width.
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN_PATH } from '../../src/accounts/domain-proof.js';
import { product, sync } from '../support/api.js';
import { TestDnsServer } from '../support/dns-server.js';
import { latestLink } from '../support/provider-browser.js';
import { STORES, startInProcessServer, type ServerUnderTest } from '../support/server.js';
import { CHROMIUM, DESKTOP, PHONE, axeViolations } from '../support/browser.js';

describe.each(STORES)("a provider's way in, in a browser, on the %s store", (store) => {
  const dns = new TestDnsServer();
  let published = '';
  let web: Server;
  let server: ServerUnderTest;
  let context: BrowserContext;
  let page: Page;
  let profile: string;

  beforeAll(async () => {
    await dns.start();
    dns.set('harbor-hosting.example', { a: ['127.0.0.1'] });
    web = createServer((request, response) => {
      if (request.url !== WELL_KNOWN_PATH || !published) return response.writeHead(404).end();
      response.end(published);
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    server = await startInProcessServer(store, {
      // the provider's web server is on this machine: its loopback address must be reachable
      env: { ALLOW_PRIVATE_TARGETS: 'on', SYNC_MAX_PER_WINDOW: '10' },
      config: { domainProofDnsServers: [dns.address], domainProofHttpPort: (web.address() as AddressInfo).port },
    });
    profile = await mkdtemp(path.join(tmpdir(), 'hostdir-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      bypassCSP: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      viewport: DESKTOP,
    });
    page = context.pages()[0] ?? (await context.newPage());
  });

  afterAll(async () => {
    await context?.close();
    await server?.stop();
    web?.closeAllConnections();
    await new Promise((resolve) => web?.close(resolve));
    await dns.stop();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  let key = '';

  it('signs up and confirms the address from the mailed link', async () => {
    await page.goto(`${server.url}/providers/join`);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Your email address').fill('ops@harbor-hosting.example');
    await page.getByLabel("Your company's name").fill('Harbor Hosting');
    await page.getByLabel("Your company's website").fill('https://harbor-hosting.example');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Check your mail');
    await page.goto(await latestLink(server.dataDir, 'ops@harbor-hosting.example'));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL('**/providers/dashboard');
    expect(await page.locator('h1').textContent()).toBe('Harbor Hosting');
    const cookie = (await context.cookies(`${server.url}/providers/dashboard`)).find(
      (c) => c.name === 'hostdir_session',
    )!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/providers' });
  });

  it('proves the domain with the token published on its web server, and is listed', async () => {
    const token = (await page.locator('#domain-token').textContent())!;
    published = `${token}\n`;
    await page.getByRole('button', { name: 'Check my domain' }).click();
    await page.waitForURL('**/providers/dashboard');
    expect(await page.locator('main').textContent()).toContain('harbor-hosting.example is proved');
    expect(await page.locator('main').textContent()).toContain('Your listing is public');
  });

  it('creates a key, shown once', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('billing');
    await page.getByRole('button', { name: 'Create key' }).click();
    key = (await page.locator('#new-key').textContent())!;
    expect(key).toMatch(/^rk_[0-9a-f]{64}$/);
    expect(await axeViolations(page)).toEqual([]);
    await page.goto(`${server.url}/providers/keys`);
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(await page.locator('main').textContent()).toContain(`rk_${key.slice(3, 11)}`);
  });

  it('shows a refused sync on the first screen, with each error as the API reported it; a fixed sync lists the plan', async () => {
    const refused = await sync(server, key, [product('vps-s', { price: -1 })]);
    expect(refused.status).toBe(422);
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await page.goto(`${server.url}/providers/dashboard`);
      const alert = page.getByRole('alert');
      await expect.poll(() => alert.textContent()).toContain('Your last sync failed');
      const box = (await alert.boundingBox())!;
      expect(box.y, `at ${viewport.width} px`).toBeLessThan(viewport.height);
    }
    await page.getByRole('link', { name: 'See every error' }).click();
    const shown = (await page.locator('main').textContent())!;
    for (const error of refused.body.errors as { pointer: string; detail: string }[]) {
      expect(shown).toContain(error.pointer);
      expect(shown).toContain(error.detail);
    }

    expect((await sync(server, key, [product('vps-s')])).status).toBe(200);
    await page.goto(`${server.url}/providers/dashboard`);
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.goto(`${server.url}/hosts/harbor-hosting`);
    expect(await page.locator('main').textContent()).toContain('Cloud VPS vps-s');
  });

  it('has nothing for axe-core to report on any page of the dashboard, at both widths', async () => {
    const pages = [
      '/providers/dashboard',
      '/providers/keys',
      '/providers/syncs',
      '/providers/profile',
      '/providers/preview',
      '/providers/people',
      '/providers/audit',
      '/providers/sign-in',
    ];
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      for (const pathname of pages) {
        expect((await page.goto(`${server.url}${pathname}`))?.status(), pathname).toBe(200);
        expect(await axeViolations(page), `${pathname} at ${viewport.width} px`).toEqual([]);
        const wide = await page.evaluate<number>('document.documentElement.scrollWidth');
        expect(wide, `${pathname} at ${viewport.width} px`).toBeLessThanOrEqual(viewport.width);
      }
    }
  });
});
