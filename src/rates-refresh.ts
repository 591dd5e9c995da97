// With RATES_URL set, the server fetches the exchange rates itself: at start, then every RATES_REFRESH_SECONDS (a day).
// Each fetch is one import (store/rates.ts): the rates and every affected product's EUR price, in one transaction.
import { parseRatesFile } from './catalog/rates.js';
import type { Database } from './store/db.js';
import { importRates, type RatesImport } from './store/rates.js';

/** How often the rates are fetched again: the reference rates are published once a working day. */
export const RATES_REFRESH_SECONDS = 86_400;
const FETCH_TIMEOUT_MS = 30_000;
/** After a failed fetch, the next try comes sooner than a whole refresh period. */
const RETRY_AFTER_FAILURE_SECONDS = 600;
/** The ECB's whole history is about 7 MB; anything much larger is not a rates file. */
const MAX_RATES_BYTES = 16 * 1024 * 1024;

/** Where the rates came from, as stored with them: the URL without credentials or query. */
export function ratesSourceOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

export async function fetchRates(db: Database, url: string): Promise<RatesImport> {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    headers: { accept: 'application/xml, application/json' },
  });
  if (!response.ok) throw new Error(`${ratesSourceOf(url)} answered ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_RATES_BYTES) throw new Error(`${ratesSourceOf(url)} sent more than ${MAX_RATES_BYTES} bytes`);
  return importRates(db, parseRatesFile(text), ratesSourceOf(url));
}

export interface RatesRefreshLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** Fetches now and then every `seconds`; stop() ends it (a fetch under way finishes on its own). */
export function keepRatesFresh(db: Database, url: string, seconds: number, log: RatesRefreshLog): { stop(): void } {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const run = () => {
    fetchRates(db, url).then(
      (outcome) => {
        log.info({ rates: outcome }, `exchange rates of ${outcome.date} fetched from ${ratesSourceOf(url)}`);
        schedule(seconds);
      },
      (error: unknown) => {
        log.warn({ err: error }, `fetching exchange rates from ${ratesSourceOf(url)} failed`);
        schedule(Math.min(seconds, RETRY_AFTER_FAILURE_SECONDS));
      },
    );
  };
  const schedule = (after: number) => {
    if (stopped) return;
    timer = setTimeout(run, after * 1000);
    timer.unref();
  };
  run();
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
