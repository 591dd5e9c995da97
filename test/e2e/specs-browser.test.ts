// Spec filters, the table view with its sortable columns, comparing plans and the message for an invalid filter,
// in a real headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core), with axe-core on each page.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startServer, type TestServer } from '../support/server.js';
import { CHROMIUM, axeViolations } from '../support/browser.js';

function seedDemo(server: TestServer): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'seed-demo'], {
      env: { PATH: process.env.PATH ?? '', HOSTDIR_URL: server.url, ADMIN_TOKEN: server.adminToken },
      stdio: 'ignore',
    });
    child.on('close', resolve);
  });
}

/** The numbers of a table column, by its header's text ("—" for a plan that does not give it: null). */
async function column(page: Page, header: string, rows = 'tr'): Promise<(number | null)[]> {
  const headers = await page.locator('table.results thead th').allTextContents();
  const index = headers.findIndex((text) => text.startsWith(header));
  expect(index, `${header} in ${headers.join(' | ')}`).toBeGreaterThan(-1);
  const cells = await page.locator(`table.results tbody ${rows} > :nth-child(${index + 1})`).allTextContents();
  return cells.map((text) =>
    text.trim() === '—' ? null : text.trim() === 'Unlimited' ? Infinity : Number.parseFloat(text),
  );
}

describe('spec filters, table and compare in a browser', () => {
  let server: TestServer;
  let context: BrowserContext;
  let page: Page;
  let profile: string;

  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`).toBe(true);
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '10' } });
    expect(await seedDemo(server)).toBe(0);
    profile = await mkdtemp(path.join(tmpdir(), 'hostdir-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
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

  it('finds the home page example and filters a category by country and a spec range', async () => {
    await page.goto(`${server.url}/`);
    await page.getByLabel('Search all products').fill('nvme vps frankfurt');
    await page.getByLabel('Search all products').press('Enter');
    await page.waitForURL(/\/search\?q=nvme\+vps\+frankfurt/);
    expect(await page.locator('main .card h2').count()).toBeGreaterThan(0);
    await expect(page.locator('.count').textContent()).resolves.toMatch(/^\d+ plans?$/);
    expect(await axeViolations(page)).toEqual([]);

    await page.goto(`${server.url}/categories/vps_cloud`);
    const before = Number.parseInt((await page.locator('.count').textContent()) ?? '', 10);
    // The filters are folded behind a summary of what is set.
    await page.locator('details.filters-fold summary').click();
    await page.getByLabel('Country', { exact: true }).selectOption('DE');
    await page.getByLabel('RAM at least').fill('8');
    await page.getByLabel('View', { exact: true }).selectOption('table');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/country=DE/);
    expect(page.url()).toMatch(/min_ram_gb=8/);
    const ram = await column(page, 'RAM');
    expect(ram.length).toBeGreaterThan(0);
    expect(ram.length).toBeLessThan(before);
    for (const value of ram) expect(value).toBeGreaterThanOrEqual(8);
    await expect(page.getByLabel('RAM at least').inputValue()).resolves.toBe('8');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.waitForURL((url) => !url.search.includes('country'));
    await expect(page.locator('.count').textContent()).resolves.toBe(`${before} plans`);
  });

  it('sorts the table by a spec column, both ways, server-side, sold-out plans last', async () => {
    // The plans that can be bought, in the column's order; the demo's sold-out server after them either way.
    const inStock = async () =>
      (await column(page, 'RAM', 'tr:not(:has(.sold-out))')).filter((value): value is number => value !== null);
    const lastIsSoldOut = () => page.locator('table.results tbody tr').last().locator('.sold-out').count();
    await page.goto(`${server.url}/categories/dedicated?view=table`);
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('table.results thead th a', { hasText: 'RAM' }).click();
    await page.waitForURL(/sort=ram_gb_desc/);
    const descending = await inStock();
    expect(descending.length).toBeGreaterThan(1);
    expect(descending).toEqual([...descending].sort((a, b) => b - a));
    await expect(lastIsSoldOut()).resolves.toBe(1);
    await expect(page.locator('th[aria-sort="descending"]').count()).resolves.toBe(1);
    await page.locator('table.results thead th a', { hasText: 'RAM' }).click();
    await page.waitForURL(/sort=ram_gb_asc/);
    const ascending = await inStock();
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    await expect(lastIsSoldOut()).resolves.toBe(1);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('compares plans picked with their boxes, without script', async () => {
    await page.goto(`${server.url}/categories/vps_cloud`);
    const names = (await page.locator('main .card h2').allTextContents()).slice(0, 2);
    for (const name of names) await page.getByLabel(`Compare ${name}`).check();
    await page.getByRole('button', { name: 'Compare selected' }).click();
    await page.waitForURL(/\/compare\?ids=prd_.+&ids=prd_/);
    const headers = await page.locator('table.compare thead th a:first-child').allTextContents();
    expect(headers).toEqual(names);
    await expect(page.getByRole('row', { name: /^RAM/ }).count()).resolves.toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: `Remove ${names[0]}` }).click();
    await page.waitForURL(/\/compare\?ids=prd_[^&,]+$/);
    await expect(page.locator('table.compare thead th a:first-child').allTextContents()).resolves.toEqual([names[1]]);
    // The plan's own page shows its specs as compared beside the specs as listed.
    await page.locator('table.compare thead th a:first-child').click();
    await page.waitForURL(/\/products\/prd_/);
    await expect(
      page.getByRole('table', { name: 'Compared as' }).getByRole('row', { name: /^RAM/ }).count(),
    ).resolves.toBe(1);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('answers an invalid filter with a visible message', async () => {
    const response = await page.goto(`${server.url}/categories/vps_cloud?min_ram_gb=lots`);
    expect(response?.status()).toBe(422);
    await expect(page.getByRole('alert').textContent()).resolves.toContain('RAM (GB) at least “lots” is not a number.');
    await expect(page.getByLabel('RAM at least').inputValue()).resolves.toBe('lots');
    expect(await axeViolations(page)).toEqual([]);
    const compare = await page.goto(`${server.url}/compare?ids=a,b,c,d,e`);
    expect(compare?.status()).toBe(422);
    await expect(page.getByRole('alert').isVisible()).resolves.toBe(true);
    expect(await axeViolations(page)).toEqual([]);
  });
});
