// Currencies and order links in a real headless Chromium: a visitor switches the display currency, sees the list
// re-ordered and "≈" figures with the rates' date, keeps the currency into a product page, and follows the provider's
// order link. axe-core checks every page visited.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, onboard, product, sync } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';
import { CHROMIUM, axeViolations } from '../support/browser.js';

/** Unfolds the filter form, which a page shows folded behind a summary of what is set. */
async function openFilters(page: Page): Promise<void> {
  await page.locator('details.filters-fold summary').click();
}

async function cardNames(page: Page): Promise<string[]> {
  return page.locator('li.card h2 a').allTextContents();
}

describe('switching the display currency in a browser', () => {
  let server: TestServer;
  let context: BrowserContext;
  let page: Page;
  let profile: string;

  beforeAll(async () => {
    server = await startServer('postgres');
    const pounds = await onboard(server, 'Pound Hosting', { default_currency: 'GBP' });
    const dollars = await onboard(server, 'Dollar Hosting', { default_currency: 'USD' });
    expect(
      (
        await sync(server, pounds.key, [
          product('gb/1 a', { name: 'Pound VPS', price: 10, currency: 'GBP', pricing_tiers: null, setup_fee: 5 }),
        ])
      ).status,
    ).toBe(200);
    expect(
      (
        await sync(server, dollars.key, [
          product('us-1', { name: 'Dollar VPS', price: 12, currency: 'USD', pricing_tiers: null }),
        ])
      ).status,
    ).toBe(200);
    expect(
      (
        await admin(server, 'PATCH', `/hosts/${pounds.slug}`, {
          website: 'https://pound.example.com',
          order_url_template: 'https://billing.pound.example.com/cart.php?a=add&pid={external_id}',
        })
      ).status,
    ).toBe(200);
    // 10 GBP = 20 EUR; 12 USD = 10 EUR: in EUR the dollar plan is the cheaper, in plain numbers the pound one.
    expect((await admin(server, 'POST', '/rates', { date: '2026-11-20', rates: { GBP: 0.5, USD: 1.2 } })).status).toBe(
      200,
    );
    profile = await mkdtemp(path.join(tmpdir(), 'hostdir-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      // axe-core is added to the page as a script, which the pages' policy would refuse.
      bypassCSP: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1024, height: 720 },
    });
    page = context.pages()[0] ?? (await context.newPage());
  });

  afterAll(async () => {
    await context?.close();
    await server?.stop();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it('orders by the converted price, switches currency from the form, and keeps it in the URL', async () => {
    await page.goto(`${server.url}/categories/vps_cloud`);
    expect(await cardNames(page)).toEqual(['Dollar VPS', 'Pound VPS']);
    expect(await page.locator('li.card').first().textContent()).toContain('≈ €10.00 per month');
    expect(await axeViolations(page)).toEqual([]);

    await openFilters(page);
    await page.getByLabel('Show prices in').selectOption('USD');
    await Promise.all([page.waitForURL(/display_currency=USD/), page.getByRole('button', { name: 'Apply' }).click()]);
    expect(new URL(page.url()).searchParams.get('display_currency')).toBe('USD');
    expect(await cardNames(page)).toEqual(['Dollar VPS', 'Pound VPS']);
    const pound = page.locator('li.card', { hasText: 'Pound VPS' });
    expect(await pound.textContent()).toContain('£10.00');
    expect(await pound.textContent()).toContain('≈ $24.00 per month');
    expect(await pound.locator('.converted time').getAttribute('datetime')).toBe('2026-11-20');
    expect(await page.getByLabel('Max. per month (USD)').count()).toBe(1);

    // A price limit in dollars: 20 USD leaves out the pound plan (24 USD).
    await openFilters(page);
    await page.getByLabel('Max. per month (USD)').fill('20');
    await Promise.all([page.waitForURL(/max_price=20/), page.getByRole('button', { name: 'Apply' }).click()]);
    expect(await cardNames(page)).toEqual(['Dollar VPS']);

    await openFilters(page);
    await page.getByLabel('Max. per month (USD)').fill('');
    await page.getByLabel('Prices per').selectOption('year');
    await Promise.all([page.waitForURL(/period=year/), page.getByRole('button', { name: 'Apply' }).click()]);
    expect(await page.locator('li.card', { hasText: 'Pound VPS' }).textContent()).toContain('≈ $288.00 per year');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('opens the product in the chosen currency, with the order link', async () => {
    await page.goto(`${server.url}/categories/vps_cloud?display_currency=USD`);
    await Promise.all([page.waitForURL(/\/products\//), page.getByRole('link', { name: 'Pound VPS' }).click()]);
    expect(new URL(page.url()).searchParams.get('display_currency')).toBe('USD');
    expect(await page.locator('aside').textContent()).toContain('(≈ $24.00)');
    const order = page.getByRole('link', { name: 'Order at Pound Hosting' });
    expect(await order.getAttribute('href')).toBe('https://billing.pound.example.com/cart.php?a=add&pid=gb%2F1%20a');
    expect(await order.getAttribute('rel')).toBe('nofollow noopener');
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${server.url}/hosts/pound-hosting`);
    expect(await page.getByRole('link', { name: 'pound.example.com' }).getAttribute('rel')).toBe('nofollow noopener');
    expect(await axeViolations(page)).toEqual([]);
  });
});
