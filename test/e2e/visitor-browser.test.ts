// A new visitor's first run, in a real headless Chromium on a phone (390 × 844) and a desktop (1 280 × 800): the demo
// as `hostdir seed-demo` leaves it, with its exchange rates. No page is wider than the screen, axe-core finds nothing,
// the compare page shows four plans side by side, a phone sees a plan's price and order link and a category's first
// result without scrolling, and the display currency goes along to the comparison.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/api.js';
import { CLI, startServer, type TestServer } from '../support/server.js';
import { CHROMIUM, DESKTOP, PHONE, axeViolations } from '../support/browser.js';

function seedDemo(server: TestServer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'seed-demo'], {
      env: { PATH: process.env.PATH ?? '', HOSTDIR_URL: server.url, ADMIN_TOKEN: server.adminToken },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** How wide the page is against the screen: wider means the visitor pans sideways into blank space. */
async function widths(page: Page): Promise<{ page: number; screen: number }> {
  return page.evaluate<{ page: number; screen: number }>(
    `({ page: document.documentElement.scrollWidth, screen: innerWidth })`,
  );
}

/** Where an element's box ends, from the top of the page (not of the screen). */
async function bottomOf(page: Page, selector: string): Promise<number> {
  const box = await page.locator(selector).first().boundingBox();
  expect(box, selector).not.toBeNull();
  const scrolled = await page.evaluate<number>('scrollY');
  return box!.y + scrolled + box!.height;
}

describe("a new visitor's first run, on a phone and a desktop", () => {
  let server: TestServer;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  /** four Cloud VPS plans, two priced in dollars and two in euros */
  let four: { id: string; name: string; currency: string }[];

  beforeAll(async () => {
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '10' } });
    const seeded = await seedDemo(server);
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(seeded.stdout).toContain("exchange rates: the ECB's of 2024-06-28");
    const listed = await call(server, 'GET', '/api/v1/directory/products?category=vps_cloud&limit=4');
    four = listed.body.products.map((p: { id: string; name: string; currency: string }) => ({
      id: p.id,
      name: p.name,
      currency: p.currency,
    }));
    expect(new Set(four.map((p) => p.currency))).toEqual(new Set(['USD', 'EUR']));
    profile = await mkdtemp(path.join(tmpdir(), 'hostdir-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
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
      viewport: DESKTOP,
    });
    page = context.pages()[0] ?? (await context.newPage());
  });

  afterAll(async () => {
    await context?.close();
    await server?.stop();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  // Each width on its own: axe-core's report on thirteen pages takes a while on a loaded machine.
  it.each([
    ['a phone', PHONE],
    ['a desktop', DESKTOP],
  ])('fits every kind of page into the screen of %s, with nothing for axe-core to report', async (_, viewport) => {
    const product = four[0]!.id;
    const pages = [
      '/',
      '/categories/vps_cloud',
      '/categories/vps_cloud?location=Helsinki&sort=price_desc',
      '/search?q=nvme',
      '/search?q=cheap',
      '/categories/vps_cloud?view=table',
      '/search?q=server&view=table',
      `/compare?ids=${four.map((p) => p.id).join(',')}`,
      `/products/${product}`,
      '/hosts/harbor-cloud',
      '/hosts',
      // the demo's dedicated servers are counted: "Only 2 left" and "Sold out" on cards and in the table
      '/categories/dedicated',
      '/categories/dedicated?view=table',
    ];
    await page.setViewportSize(viewport);
    for (const pathname of pages) {
      const answer = await page.goto(`${server.url}${pathname}`);
      expect(answer?.status(), pathname).toBe(200);
      const { page: wide, screen } = await widths(page);
      expect(wide, `${pathname} at ${viewport.width} px`).toBeLessThanOrEqual(screen);
      expect(await axeViolations(page), `${pathname} at ${viewport.width} px`).toEqual([]);
    }
  });

  it('compares four plans side by side at 1 280 px, every name and price in view, in the display currency', async () => {
    await page.setViewportSize(DESKTOP);
    await page.goto(`${server.url}/compare?ids=${four.map((p) => p.id).join(',')}`);
    const table = page.locator('table.compare');
    expect(
      await table.evaluate((element) => element.parentElement!.scrollWidth <= element.parentElement!.clientWidth),
    ).toBe(true);
    const monthly = page.getByRole('row', { name: /^Per month/ }).locator('td');
    expect(await monthly.count()).toBe(4);
    for (const [index, plan] of four.entries()) {
      for (const shown of [
        page.locator('table.compare thead th').nth(index).getByRole('link', { name: plan.name, exact: true }),
        monthly.nth(index),
      ]) {
        const box = await shown.boundingBox();
        expect(box).not.toBeNull();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(DESKTOP.width);
        expect(box!.y + box!.height).toBeLessThanOrEqual(DESKTOP.height);
      }
      // Every price in euros; a plan priced in dollars says so below its figure.
      const text = await monthly.nth(index).textContent();
      expect(text).toMatch(/^€\d/);
      if (plan.currency === 'USD') expect(text).toMatch(/priced at \$\d/);
    }
    // The lowest price is marked in words, not by colour alone.
    await expect(
      page
        .getByRole('row', { name: /^Per month/ })
        .getByText('Lowest', { exact: true })
        .count(),
    ).resolves.toBe(1);
    await expect(page.getByRole('row', { name: /^Per year/ }).count()).resolves.toBe(1);
    await expect(page.getByRole('row', { name: /^First year/ }).count()).resolves.toBe(1);
  });

  it('keeps the row labels in view when the comparison scrolls sideways on a phone', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${server.url}/compare?ids=${four.map((p) => p.id).join(',')}`);
    const label = page.getByRole('rowheader', { name: 'Per month' });
    const before = (await label.boundingBox())!;
    const scrolled = await page.locator('.scroll').evaluate((box) => {
      box.scrollLeft = 400;
      return box.scrollLeft;
    });
    expect(scrolled).toBeGreaterThan(100);
    const after = (await label.boundingBox())!;
    expect(after.x).toBe(before.x);
    expect((await widths(page)).page).toBeLessThanOrEqual(PHONE.width);
  });

  it('says which dedicated servers run short or are sold out, and lists the sold-out one last', async () => {
    await page.setViewportSize(DESKTOP);
    for (const sort of ['price', 'price_desc']) {
      await page.goto(`${server.url}/categories/dedicated?sort=${sort}`);
      const cards = page.locator('main .card');
      const names = await cards.locator('h2').allTextContents();
      expect(names.map((name) => name.trim()).at(-1), sort).toBe('Dedicated AX102');
      await expect(cards.filter({ hasText: 'Dedicated AX102' }).locator('.sold-out').textContent()).resolves.toBe(
        'Sold out',
      );
      await expect(cards.filter({ hasText: 'Dedicated AX52' }).locator('.few-left').textContent()).resolves.toBe(
        'Only 2 left',
      );
      // Forty servers left is plenty: nothing said.
      expect(await cards.filter({ hasText: 'Dedicated AX41' }).locator('.few-left, .sold-out').count()).toBe(0);
    }
  });

  it("shows a plan's price, key specs and order link in a phone's first screen", async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${server.url}/products/${four[0]!.id}`);
    expect(await bottomOf(page, 'aside .price')).toBeLessThanOrEqual(PHONE.height);
    expect(await bottomOf(page, 'ul.keyspecs')).toBeLessThanOrEqual(PHONE.height);
    const order = page.getByRole('link', { name: /^Order at / });
    expect(await order.getAttribute('href')).toMatch(/^https:\/\/www\.[a-z-]+\.example\/order\?plan=/);
    expect(await bottomOf(page, 'a[href*="/order?plan="]')).toBeLessThanOrEqual(PHONE.height);
  });

  it("shows a category's first result in a phone's first screen, behind filters folded to what is set", async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${server.url}/categories/vps_cloud`);
    expect(await bottomOf(page, 'main .card h2')).toBeLessThanOrEqual(PHONE.height);
    expect(await bottomOf(page, 'main .card .price')).toBeLessThanOrEqual(PHONE.height);
    await expect(page.getByLabel('Location', { exact: true }).isVisible()).resolves.toBe(false);

    // Opened, set, applied: the address carries the filter set and nothing the form sent empty.
    await page.locator('details.filters-fold summary').click();
    await page.getByLabel('Location', { exact: true }).selectOption('Helsinki');
    await Promise.all([page.waitForURL(/location=Helsinki/), page.getByRole('button', { name: 'Apply' }).click()]);
    expect(new URL(page.url()).search).toBe('?location=Helsinki');
    await expect(page.locator('details.filters-fold summary').textContent()).resolves.toContain('Helsinki, Finland');
    await expect(page.getByLabel('Location', { exact: true }).isVisible()).resolves.toBe(false);
    expect(await bottomOf(page, 'main .card h2')).toBeLessThanOrEqual(PHONE.height);
  });

  it('converts and sorts across currencies on the first run, and says the rates are of 2024-06-28', async () => {
    await page.setViewportSize(DESKTOP);
    await page.goto(`${server.url}/categories/vps_cloud`);
    await expect(page.getByText('Not converted').count()).resolves.toBe(0);
    // $4.00 is €3.74 at the ECB's 1.0705: cheaper than the €3.79 plan, and listed before it.
    const names = await page.locator('main .card h2').allTextContents();
    expect(names.slice(0, 2)).toEqual(['Harbor VM Nano', 'Cloud Server CX11']);
    const nano = page.locator('li.card', { hasText: 'Harbor VM Nano' });
    expect(await nano.textContent()).toContain('≈ €3.74 per month');
    expect(await nano.locator('.converted time').getAttribute('datetime')).toBe('2024-06-28');
  });

  it('carries the display currency from a category through "Compare selected"', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${server.url}/categories/vps_cloud?display_currency=USD`);
    const names = (await page.locator('main .card h2').allTextContents()).slice(0, 2);
    for (const name of names) await page.getByLabel(`Compare ${name}`).check();
    await Promise.all([page.waitForURL(/\/compare\?/), page.getByRole('button', { name: 'Compare selected' }).click()]);
    expect(new URL(page.url()).searchParams.get('display_currency')).toBe('USD');
    await expect(page.getByLabel('Show prices in').inputValue()).resolves.toBe('USD');
    const monthly = await page
      .getByRole('row', { name: /^Per month/ })
      .locator('td')
      .allTextContents();
    expect(monthly).toHaveLength(2);
    for (const text of monthly) expect(text).toMatch(/^\$\d/);
    // The plan priced in euros shows its own price beside the converted one.
    expect(monthly.some((text) => /priced at €3\.79/.test(text))).toBe(true);
    // Its plans' links keep the currency.
    expect(await page.locator('table.compare thead th a').first().getAttribute('href')).toMatch(
      /display_currency=USD$/,
    );
  });
});
