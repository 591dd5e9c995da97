// A visitor watches a search in a real headless Chromium, without script: the form on a category page, the mailed
// confirmation link (read from the .eml file the server wrote, as it does with no SMTP_URL), the confirmation button,
// and the unsubscribe link and button; a plan's page offers its own form. axe-core finds nothing on any of those
// pages, at a phone's width and a desktop's.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync } from '../support/api.js';
import { mails } from '../support/provider-browser.js';
import { STORES, startInProcessServer, type ServerUnderTest } from '../support/server.js';
import { CHROMIUM, DESKTOP, PHONE, axeViolations } from '../support/browser.js';

/** The confirmation link of the latest mail to `to` (quoted-printable soft breaks joined). */
async function confirmationLink(dataDir: string, to: string): Promise<string> {
  const last = (await mails(dataDir)).filter((mail) => new RegExp(`^To: ${to}$`, 'mi').test(mail)).at(-1);
  if (!last) throw new Error(`no mail to ${to}`);
  const link = /https?:\/\/\S+\/watches\/confirm\?token=wcf_[\w-]+/.exec(
    last.replace(/=\r?\n/g, '').replace(/=3D/g, '='),
  );
  if (!link) throw new Error(`no confirmation link in the mail to ${to}:\n${last}`);
  return link[0];
}

describe.each(STORES)('watching a search in a browser, on the %s store', (store) => {
  let server: ServerUnderTest;
  let withoutScript: BrowserContext;
  let withScript: BrowserContext;
  const profiles: string[] = [];
  let productId: string;

  const launch = async (javaScriptEnabled: boolean) => {
    const profile = await mkdtemp(path.join(tmpdir(), 'hostdir-chromium-'));
    profiles.push(profile);
    return chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      bypassCSP: true,
      javaScriptEnabled,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      viewport: PHONE,
    });
  };

  beforeAll(async () => {
    server = await startInProcessServer(store, { env: { SYNC_MAX_PER_WINDOW: '10' } });
    const host = await onboard(server, 'Watched Hosting');
    const synced = await sync(server, host.key, [product('w-1', { currency: 'EUR', price: 7, pricing_tiers: null })]);
    expect(synced.status).toBe(200);
    const listed = await call(server, 'GET', `/api/v1/directory/products?host=${host.slug}&include_stale=1`);
    productId = listed.body.products[0].id as string;
    [withoutScript, withScript] = await Promise.all([launch(false), launch(true)]);
  });

  afterAll(async () => {
    await Promise.all([withoutScript?.close(), withScript?.close()]);
    await server?.stop();
    await Promise.all(profiles.map((profile) => rm(profile, { recursive: true, force: true })));
  });

  /**
   * The whole way, on one page: the form on a category page, the mailed link, the confirmation, the unsubscribe link
   * and button. `check` runs on each page the visitor sees (axe-core, where script is on).
   */
  async function watchAndStop(page: Page, email: string, check: () => Promise<void>): Promise<void> {
    await page.goto(`${server.url}/categories/vps_cloud`);
    await check();
    const form = page.getByRole('form', { name: 'Watch this search' });
    await form.getByLabel('Your email address').fill(email);
    await form.getByRole('button', { name: 'Watch this search' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Check your inbox');
    expect(await page.textContent('main')).toContain(email);
    await check();
    await page.goto(await confirmationLink(server.dataDir, email));
    expect(await page.locator('h1').textContent()).toBe('Confirm your watch');
    await check();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Watch confirmed');
    await check();
    await page.getByRole('link', { name: 'this one' }).click();
    expect(await page.locator('h1').textContent()).toBe('Stop these messages');
    await check();
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Unsubscribed');
    await check();
  }

  it('subscribes from a category page, confirms from the mailed link and unsubscribes, without script', async () => {
    const page = withoutScript.pages()[0] ?? (await withoutScript.newPage());
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await watchAndStop(page, `noscript-${viewport.width}@example.net`, async () => {});
    }
  });

  it('has nothing for axe-core to report on any page of the way, at both widths', async () => {
    const page = withScript.pages()[0] ?? (await withScript.newPage());
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await watchAndStop(page, `axe-${viewport.width}@example.net`, async () => {
        expect(await axeViolations(page), `${page.url()} at ${viewport.width} px`).toEqual([]);
      });
    }
  });

  it("offers a plan's own form on its page", async () => {
    const page = withoutScript.pages()[0] ?? (await withoutScript.newPage());
    await page.setViewportSize(DESKTOP);
    await page.goto(`${server.url}/products/${productId}`);
    const form = page.getByRole('form', { name: 'Watch this plan' });
    await expect.poll(() => form.isVisible()).toBe(true);
    expect(await form.getByLabel('Your email address').getAttribute('type')).toBe('email');
  });
});
