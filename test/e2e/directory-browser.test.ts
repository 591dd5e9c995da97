// The directory's pages in a real headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core): a
// visitor searches, filters a category, opens a product, and sees a provider's sync on the page at once.
// Screenshots go to a temporary folder; `npm run screenshots` writes them to docs/screenshots/, which the docs show.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_HOSTS } from '../../src/cli/demo-catalogue.js';
import { admin, call, sync } from '../support/api.js';
import { CLI, startServer, type TestServer } from '../support/server.js';

const CHROMIUM = '/usr/bin/chromium';
const PAGE_BUDGET_BYTES = 100 * 1024;
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;

function runCli(server: TestServer, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', HOSTDIR_URL: server.url, ADMIN_TOKEN: server.adminToken },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface PageFacts {
  lang: string;
  title: string;
  landmarks: string[];
  h1: number;
  skipLink: string | null;
  unlabelled: string[];
  imagesWithoutAlt: number;
  lowContrast: string[];
}

// Runs in the page; kept as source text so that the tests need no DOM typings.
const FACTS_SCRIPT = `(() => {
  const controls = [...document.querySelectorAll('input, select, textarea')].filter((element) => element.type !== 'hidden');
  return {
    lang: document.documentElement.lang,
    title: document.title,
    landmarks: ['header', 'nav', 'main', 'footer'].filter((tag) => document.querySelector(tag) !== null),
    h1: document.querySelectorAll('h1').length,
    skipLink: document.querySelector('a[href="#main"]')?.textContent ?? null,
    unlabelled: controls
      .filter((control) => (control.labels?.length ?? 0) === 0 && !control.getAttribute('aria-label'))
      .map((control) => control.outerHTML),
    imagesWithoutAlt: document.querySelectorAll('img:not([alt])').length,
    lowContrast: lowContrast(),
  };
  // WCAG 2 contrast of every element that holds text against the first opaque background behind it.
  function lowContrast() {
    const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
    const luminance = ([r, g, b]) => {
      const channel = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const background = (element) => {
      for (let node = element; node; node = node.parentElement) {
        const color = rgb(getComputedStyle(node).backgroundColor);
        if (color.length === 3 || color[3] === 1) return color.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const failures = [];
    for (const element of document.querySelectorAll('body *')) {
      const hasText = [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim() !== '');
      if (!hasText || element.closest('.skip, .visually-hidden, option')) continue;
      const a = luminance(rgb(getComputedStyle(element).color));
      const b = luminance(background(element));
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (ratio < 4.5) failures.push(element.tagName + ' ' + element.textContent.trim().slice(0, 40) + ' ' + ratio.toFixed(2));
    }
    return failures;
  }
})()`;

/** What every page must offer: a language, landmarks, a skip link, and a label for every control. */
async function checkAccessibilityBasics(page: Page): Promise<void> {
  const facts = await page.evaluate<PageFacts>(FACTS_SCRIPT);
  expect(facts.lang).toBe('en');
  expect(facts.title).toMatch(/hostdir$/);
  expect(facts.landmarks).toEqual(['header', 'nav', 'main', 'footer']);
  expect(facts.h1).toBe(1);
  expect(facts.skipLink).toBe('Skip to content');
  expect(facts.unlabelled).toEqual([]);
  expect(facts.imagesWithoutAlt).toBe(0);
  expect(facts.lowContrast).toEqual([]);
}

describe('directory pages in a browser', () => {
  let server: TestServer;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let shots: string;
  /** What the browser logged as errors (a missing icon among them), and requests that failed, since the last visit. */
  const consoleErrors: string[] = [];

  /** Opens a path, checks its size and basics, and screenshots it on a desktop and a phone. */
  async function visit(pathname: string, name: string): Promise<void> {
    consoleErrors.length = 0;
    const response = await page.goto(`${server.url}${pathname}`, { waitUntil: 'load' });
    expect(response?.status(), pathname).toBe(200);
    expect((await response!.body()).length).toBeLessThan(PAGE_BUDGET_BYTES);
    await checkAccessibilityBasics(page);
    await screenshot(name);
    expect(consoleErrors, pathname).toEqual([]);
  }

  async function screenshot(name: string): Promise<void> {
    for (const [device, viewport] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: path.join(shots, `${name}-${device}.png`) });
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  }

  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`).toBe(true);
    server = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '10' } });
    const seeded = await runCli(server, ['seed-demo']);
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(seeded.stdout).toContain('nordlicht-hosting: onboarded, 17 products synced');
    expect(seeded.stdout).toContain("exchange rates: the ECB's of 2024-06-28");

    profile = await mkdtemp(path.join(tmpdir(), 'hostdir-chromium-'));
    shots = process.env.SCREENSHOTS ? path.resolve(process.env.SCREENSHOTS) : path.join(profile, 'screenshots');
    await mkdir(shots, { recursive: true });
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: VIEWPORTS.desktop,
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('response', (answer) => {
      if (answer.status() >= 400) consoleErrors.push(`${answer.status()} ${answer.url()}`);
    });
    page.on('requestfailed', (request) => consoleErrors.push(`failed: ${request.url()}`));
  });

  afterAll(async () => {
    await context?.close();
    await server?.stop();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it('seed-demo leaves providers that exist as they are', async () => {
    const again = await runCli(server, ['seed-demo', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).hosts.map((host: { products: number | null }) => host.products)).toEqual([
      null,
      null,
      null,
      null,
    ]);
    const hosts = await call(server, 'GET', '/api/v1/directory/hosts');
    expect(
      hosts.body.hosts.map((host: { slug: string; product_count: number }) => [host.slug, host.product_count]),
    ).toEqual([
      ['blockforge-games', 17],
      ['harbor-cloud', 19],
      ['kestrel-web', 11],
      ['nordlicht-hosting', 17],
    ]);
  });

  it('shows the categories on the home page and searches from its search box', async () => {
    await visit('/', 'home');
    await expect(page.getByRole('link', { name: 'Cloud VPS' }).count()).resolves.toBe(1);
    await page.getByLabel('Search all products').fill('nvme cloud');
    await page.getByLabel('Search all products').press('Enter');
    await page.waitForURL(/\/search\?q=nvme\+cloud/);
    const names = await page.locator('main .card h2').allTextContents();
    expect(names.length).toBeGreaterThan(0);
    expect(names).toContain('Cloud Server CX11');
    await visit('/search?q=nvme+cloud', 'search');
  });

  it('filters a category by location and sorts it', async () => {
    await visit('/categories/vps_cloud', 'category');
    // The filters are folded behind a summary of what is set.
    await page.locator('details.filters-fold summary').click();
    await page.getByLabel('Location', { exact: true }).selectOption('Helsinki');
    await page.getByLabel('Sort', { exact: true }).selectOption('price_desc');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/location=Helsinki/);
    const cards = page.locator('main .card');
    const count = await cards.count();
    expect(count).toBe(5);
    for (let i = 0; i < count; i += 1)
      await expect(cards.nth(i).locator('.tags').textContent()).resolves.toContain('Helsinki, Finland');
    const prices = (await page.locator('main .card .price').allTextContents()).map((text) =>
      Number(text.replace(/[^0-9.]/g, '')),
    );
    expect(prices).toEqual([...prices].sort((a, b) => b - a));
    await expect(page.locator('details.filters-fold summary').textContent()).resolves.toContain(
      'Helsinki, Finland · Price: high to low',
    );
    await expect(page.getByLabel('Location', { exact: true }).inputValue()).resolves.toBe('Helsinki');
    await visit('/categories/vps_cloud?view=table', 'table');
  });

  it('compares four plans side by side', async () => {
    const listed = await call(server, 'GET', '/api/v1/directory/products?category=vps_cloud&limit=4');
    await visit(`/compare?ids=${listed.body.products.map((p: { id: string }) => p.id).join(',')}`, 'compare');
    await expect(page.locator('table.compare thead th').count()).resolves.toBe(4);
  });

  it('opens a product with its prices, specs, features and locations', async () => {
    await page.goto(`${server.url}/categories/dedicated`);
    await page.getByRole('link', { name: 'Dedicated AX52' }).click();
    await page.waitForURL(/\/products\/prd_/);
    await checkAccessibilityBasics(page);
    await expect(page.locator('h1').textContent()).resolves.toBe('Dedicated AX52');
    await expect(page.locator('aside .price').first().textContent()).resolves.toBe('€59.00');
    await expect(page.getByRole('row', { name: /RAM \(GB\)/ }).textContent()).resolves.toContain('64');
    await expect(page.getByRole('cell', { name: /Yearly/ }).count()).resolves.toBe(1);
    await expect(page.locator('main li', { hasText: 'Falkenstein' }).count()).resolves.toBe(1);
    await screenshot('product');
    await visit('/hosts/harbor-cloud', 'host');
  });

  it("shows a provider's sync on the page as soon as it is applied", async () => {
    const issued = await admin(server, 'POST', '/hosts/kestrel-web/keys');
    expect(issued.status).toBe(201);
    const listing = await call(server, 'GET', '/api/v1/directory/hosts/kestrel-web?limit=100');
    const lite = listing.body.products.find((p: { name: string }) => p.name === 'UK Web Lite');
    await page.goto(`${server.url}/products/${lite.id}`);
    await expect(page.locator('aside .price').first().textContent()).resolves.toBe('£1.99');

    // The billing system pushes its catalogue again, with the Lite plan renamed and cheaper.
    const kestrel = DEMO_HOSTS.find((host) => host.slug === 'kestrel-web')!;
    const changed = kestrel.products.map((p) =>
      p.external_id === 'uk-web-lite'
        ? { ...p, name: 'UK Web Lite 2026', price: 1.49, pricing_tiers: [{ period: 'monthly', price: 1.49 }] }
        : p,
    );
    const pushed = await sync(server, issued.body.api_key.key, changed);
    expect(pushed.status, pushed.text).toBe(200);

    // The first reload after the sync shows it: no copy of the page outlives a sync.
    await page.reload();
    await expect(page.locator('h1').textContent()).resolves.toBe('UK Web Lite 2026');
    await expect(page.locator('aside .price').first().textContent()).resolves.toBe('£1.49');

    // Withdrawn from the catalogue: the page says so, in HTML.
    const withdrawn = await sync(
      server,
      issued.body.api_key.key,
      changed.filter((p) => p.external_id !== 'uk-web-lite'),
    );
    expect(withdrawn.status).toBe(200);
    const gone = await page.reload();
    expect(gone?.status()).toBe(404);
    await expect(page.locator('h1').textContent()).resolves.toBe('Not found');
    await checkAccessibilityBasics(page);
  });
});
