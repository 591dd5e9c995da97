// What the Chromium suites share: Debian's Chromium, the two screen sizes pages are checked at, and axe-core's
// report of a page.
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** Debian's Chromium: playwright-core drives it and never downloads one. */
export const CHROMIUM = '/usr/bin/chromium';
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** axe-core's violations on the page as it is, one line each: the rule and the elements it found. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate<string[]>(
    `axe.run(document).then((result) => result.violations.map((v) => v.id + ': ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`,
  );
}
