// npm run lighthouse: Lighthouse's four categories (performance, accessibility, best practices, SEO) for every page
// type of the directory, in Debian's headless Chromium, against a server it starts itself (the embedded store, in a
// temporary folder, on a free port) filled with the demo providers. Prints a table of scores and exits 1 when any
// score is below 100 (2 when it could not run). `--json` prints every score as JSON too; `--desktop` uses
// Lighthouse's desktop settings instead of its default (a mid-range phone on a slow 4G network, simulated).
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { desktopConfig } from 'lighthouse';
import { startServer } from './support.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const LIGHTHOUSE_VERSION = JSON.parse(
  readFileSync(path.join(ROOT, 'node_modules/lighthouse/package.json'), 'utf8'),
).version;
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];

/**
 * Every page type, by name and path; `demo` holds what the demo data gave (a host's slug, a product's id). Add a
 * page type here when you add one. The HTML 404 page is left out on purpose: Lighthouse's SEO category fails any page
 * answered with a 4xx status, which is what a 404 page is for.
 */
export const PAGE_TYPES = [
  { name: 'home', path: () => '/' },
  { name: 'category', path: () => '/categories/vps_cloud' },
  { name: 'category, filtered', path: () => '/categories/vps_cloud?location=Frankfurt&sort=price_desc' },
  { name: 'search results', path: () => '/search?q=nvme' },
  { name: 'category, table', path: () => '/categories/vps_cloud?view=table&sort=ram_gb_desc&country=DE' },
  { name: 'category, by value', path: () => '/categories/vps_cloud?sort=price_per_ram_gb' },
  { name: 'compare', path: (demo) => `/compare?ids=${demo.compared}` },
  { name: 'providers', path: () => '/hosts' },
  { name: 'provider', path: (demo) => `/hosts/${demo.host}` },
  { name: 'product', path: (demo) => `/products/${demo.product}` },
  { name: 'problem page', path: () => '/api/v1/problems/rate-limited' },
  { name: 'provider sign-up', path: () => '/providers/join' },
  { name: 'provider sign-in', path: () => '/providers/sign-in' },
];

const json = process.argv.includes('--json');
const desktop = process.argv.includes('--desktop');

/** The demo providers, through the command line as a user adds them; then a host and a product to visit. */
async function seedDemo(server) {
  await promisify(execFile)(process.execPath, [path.join(ROOT, 'dist/cli/main.js'), 'seed-demo'], {
    env: { PATH: process.env.PATH ?? '', HOSTDIR_URL: server.url, ADMIN_TOKEN: server.adminToken },
    timeout: 120_000,
  });
  const products = await (await fetch(`${server.url}/api/v1/directory/products?category=vps_cloud&limit=2`)).json();
  const product = products.products[0];
  return { host: product.host.slug, product: product.id, compared: products.products.map((p) => p.id).join(',') };
}

function table(rows) {
  const header = ['page', ...CATEGORIES];
  const cells = rows.map((row) => [row.name, ...CATEGORIES.map((category) => String(row.scores[category] ?? 'n/a'))]);
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((cell) => cell[i].length)));
  const line = (cell) =>
    cell.map((text, i) => (i === 0 ? text.padEnd(widths[i]) : text.padStart(widths[i]))).join('  ');
  return [line(header), ...cells.map(line)].join('\n');
}

async function main() {
  if (!existsSync(CHROMIUM)) {
    console.error(`${CHROMIUM} is missing: apt-get install -y chromium (or set CHROMIUM)`);
    process.exit(2);
  }
  const server = await startServer();
  let chrome;
  const rows = [];
  const failures = [];
  try {
    const demo = await seedDemo(server);
    chrome = await chromeLauncher.launch({
      chromePath: CHROMIUM,
      chromeFlags: [
        '--headless=new',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
    });
    for (const pageType of PAGE_TYPES) {
      const url = `${server.url}${pageType.path(demo)}`;
      const result = await lighthouse(
        url,
        { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: CATEGORIES },
        desktop ? desktopConfig : undefined,
      );
      const { lhr } = result;
      const scores = Object.fromEntries(
        CATEGORIES.map((category) => [category, Math.round((lhr.categories[category]?.score ?? 0) * 100)]),
      );
      rows.push({ name: pageType.name, path: pageType.path(demo), scores });
      for (const category of CATEGORIES) {
        if (scores[category] === 100) continue;
        // What kept the score below 100: the category's audits that did not pass.
        const missed = lhr.categories[category].auditRefs
          .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1)
          .map((ref) => `${ref.id} (${lhr.audits[ref.id].displayValue ?? lhr.audits[ref.id].score})`);
        failures.push(`${pageType.name} ${category} ${scores[category]}: ${missed.join(', ') || 'see the report'}`);
      }
    }
  } finally {
    await chrome?.kill();
    await server.stop();
  }
  const chromium = (
    await promisify(execFile)(CHROMIUM, ['--version']).catch(() => ({ stdout: CHROMIUM }))
  ).stdout.trim();
  console.log(
    `Lighthouse ${LIGHTHOUSE_VERSION}, ${desktop ? 'desktop' : 'mobile (its default)'} settings, ${chromium}`,
  );
  console.log(table(rows));
  if (json) console.log(JSON.stringify({ settings: desktop ? 'desktop' : 'mobile', pages: rows }));
  if (failures.length > 0) {
    console.error(`\nbelow 100:\n${failures.join('\n')}`);
    process.exit(1);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
