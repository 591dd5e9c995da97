// Exchange rates, framework-free: reading the ECB's daily reference rates (eurofxref-daily.xml, or the history files
// of the same shape) and the directory's own JSON form, and converting prices through the base currency (EUR).
import { isKnownCurrency } from './currency.js';

/** The currency every price is converted into for comparison: the ECB's reference rates are quoted against it. */
export const BASE_CURRENCY = 'EUR';

/** Rates of one day: how many units of each currency one EUR buys, as exact decimal text. */
export interface RateDay {
  date: string;
  rates: Map<string, string>;
}

export interface RatesProblem {
  pointer: string;
  code: string;
  detail: string;
}

export class RatesFormatError extends Error {
  constructor(readonly problems: RatesProblem[]) {
    super(problems.map((problem) => `${problem.pointer || '(file)'}: ${problem.detail}`).join('; '));
  }
}

/** The most days one file may hold (the ECB's full history since 1999 is about 6 700). */
export const RATE_DAYS_MAX = 10_000;
/** A positive decimal of sensible size: 1 EUR never buys more than a trillion units of anything. */
const RATE = /^(?:0|[1-9]\d{0,11})(?:\.\d{1,12})?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function isDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

function checkRate(currency: string, rate: string, pointer: string, problems: RatesProblem[]): boolean {
  if (!/^[A-Z]{3}$/.test(currency) || !isKnownCurrency(currency)) {
    problems.push({ pointer, code: 'currency', detail: `"${currency}" is not an ISO 4217 currency code` });
    return false;
  }
  if (currency === BASE_CURRENCY) {
    problems.push({
      pointer,
      code: 'base_currency',
      detail: `rates are quoted against ${BASE_CURRENCY}; it has no rate of its own`,
    });
    return false;
  }
  if (!RATE.test(rate) || Number(rate) <= 0) {
    problems.push({
      pointer,
      code: 'rate',
      detail: `the rate of ${currency} must be a positive decimal number, got "${rate}"`,
    });
    return false;
  }
  return true;
}

/** Attributes of one XML start tag, quoted with ' or " (the ECB uses '). */
function attributes(tag: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of tag.matchAll(/([A-Za-z_:][\w:.-]*)\s*=\s*(?:'([^']*)'|"([^"]*)")/g)) {
    found.set(match[1]!, match[2] ?? match[3] ?? '');
  }
  return found;
}

/**
 * The days of an ECB reference-rate file: `<gesmes:Envelope>` holding `<Cube>`, holding one `<Cube time='…'>` per
 * day, each holding `<Cube currency='USD' rate='1.0705'/>`. Anything else in the file (subject, sender) is ignored;
 * a file of that shape with a broken day, rate or currency is refused whole.
 */
export function parseEcbXml(text: string): RateDay[] {
  const problems: RatesProblem[] = [];
  if (!/<(?:[\w-]+:)?Envelope[\s>]/.test(text)) {
    throw new RatesFormatError([
      { pointer: '', code: 'format', detail: 'not an ECB reference-rate file: no <gesmes:Envelope>' },
    ]);
  }
  // A download cut short would otherwise read as a day with fewer rates.
  if (!/<\/(?:[\w-]+:)?Envelope>\s*(?:<!--[^]*?-->\s*)*$/.test(text)) {
    throw new RatesFormatError([
      { pointer: '', code: 'incomplete', detail: 'the file ends before </gesmes:Envelope>: it was cut short' },
    ]);
  }
  const days: RateDay[] = [];
  let day: RateDay | null = null;
  let depth = 0;
  const seen = new Set<string>();
  for (const match of text.matchAll(/<(\/?)Cube\b([^>]*?)(\/?)>/g)) {
    const [, closing, body, selfClosing] = match;
    if (closing) {
      if (depth === 2) day = null;
      depth = Math.max(0, depth - 1);
      continue;
    }
    const attrs = attributes(body ?? '');
    if (attrs.has('time')) {
      const date = attrs.get('time')!;
      const pointer = `Cube[time='${date}']`;
      if (!isDate(date)) problems.push({ pointer, code: 'date', detail: `"${date}" is not a date (YYYY-MM-DD)` });
      else if (seen.has(date)) problems.push({ pointer, code: 'duplicate', detail: `the day ${date} is listed twice` });
      seen.add(date);
      day = { date, rates: new Map() };
      days.push(day);
      if (!selfClosing) depth = 2;
      continue;
    }
    if (attrs.has('currency') || attrs.has('rate')) {
      const currency = attrs.get('currency') ?? '';
      const rate = (attrs.get('rate') ?? '').trim();
      const pointer = `Cube[currency='${currency}']`;
      if (day === null) {
        problems.push({ pointer, code: 'format', detail: 'a rate outside of a <Cube time=…> day' });
      } else if (day.rates.has(currency)) {
        problems.push({ pointer, code: 'duplicate', detail: `${currency} is listed twice on ${day.date}` });
      } else if (checkRate(currency, rate, pointer, problems)) {
        day.rates.set(currency, rate);
      }
      continue;
    }
    if (!selfClosing) depth += 1;
  }
  if (days.length === 0 && problems.length === 0) {
    problems.push({ pointer: '', code: 'format', detail: "no <Cube time='…'> day in the file" });
  }
  for (const found of days) {
    if (found.rates.size === 0 && problems.length === 0) {
      problems.push({
        pointer: `Cube[time='${found.date}']`,
        code: 'format',
        detail: `the day ${found.date} holds no rate`,
      });
    }
  }
  if (days.length > RATE_DAYS_MAX)
    problems.push({ pointer: '', code: 'max_items', detail: `at most ${RATE_DAYS_MAX} days per file` });
  if (problems.length > 0) throw new RatesFormatError(problems.slice(0, 100));
  return days;
}

/**
 * The JSON form: `{"base": "EUR", "date": "2026-11-20", "rates": {"USD": 1.0842, "GBP": "0.8571"}}`, or an array
 * of such days. `base` may be left out; any other base is refused (rates are kept against EUR).
 */
export function parseRatesJson(value: unknown): RateDay[] {
  const problems: RatesProblem[] = [];
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) problems.push({ pointer: '', code: 'min_items', detail: 'no day of rates' });
  if (list.length > RATE_DAYS_MAX)
    problems.push({ pointer: '', code: 'max_items', detail: `at most ${RATE_DAYS_MAX} days` });
  const days: RateDay[] = [];
  const seen = new Set<string>();
  list.slice(0, RATE_DAYS_MAX).forEach((entry, k) => {
    const at = Array.isArray(value) ? `/${k}` : '';
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push({ pointer: at, code: 'type', detail: 'must be an object {"date", "rates"}' });
      return;
    }
    const record = entry as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (!['base', 'date', 'rates'].includes(key))
        problems.push({ pointer: `${at}/${key}`, code: 'unknown_field', detail: 'unknown field' });
    }
    if (record.base !== undefined && record.base !== BASE_CURRENCY) {
      problems.push({
        pointer: `${at}/base`,
        code: 'base_currency',
        detail: `rates are kept against ${BASE_CURRENCY}`,
      });
    }
    const date = record.date;
    if (typeof date !== 'string' || !isDate(date)) {
      problems.push({ pointer: `${at}/date`, code: 'date', detail: 'must be a date, YYYY-MM-DD' });
    } else if (seen.has(date)) {
      problems.push({ pointer: `${at}/date`, code: 'duplicate', detail: `the day ${date} is given twice` });
    }
    if (typeof date === 'string') seen.add(date);
    const rates = record.rates;
    if (typeof rates !== 'object' || rates === null || Array.isArray(rates) || Object.keys(rates).length === 0) {
      problems.push({
        pointer: `${at}/rates`,
        code: 'type',
        detail: 'must be an object of at least one {"USD": 1.08}',
      });
      return;
    }
    const day: RateDay = { date: String(date), rates: new Map() };
    for (const [currency, raw] of Object.entries(rates as Record<string, unknown>)) {
      const pointer = `${at}/rates/${currency.replaceAll('~', '~0').replaceAll('/', '~1')}`;
      const rate =
        typeof raw === 'number' && Number.isFinite(raw) ? decimalText(raw) : typeof raw === 'string' ? raw.trim() : '';
      if (checkRate(currency, rate, pointer, problems)) day.rates.set(currency, rate);
    }
    days.push(day);
  });
  if (problems.length > 0) throw new RatesFormatError(problems.slice(0, 100));
  return days;
}

/** A number as plain decimal text (no exponent). */
function decimalText(value: number): string {
  const text = String(value);
  return /e/i.test(text) ? value.toFixed(12).replace(/\.?0+$/, '') : text;
}

/** A rates file of either form: XML (the ECB's) when it starts with '<', else the JSON form. */
export function parseRatesFile(text: string): RateDay[] {
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('<')) return parseEcbXml(start);
  let parsed: unknown;
  try {
    parsed = JSON.parse(start);
  } catch {
    throw new RatesFormatError([
      { pointer: '', code: 'format', detail: 'neither an ECB reference-rate XML file nor JSON' },
    ]);
  }
  return parseRatesJson(parsed);
}

/** A rate as the directory uses it: units of `currency` per one EUR, and the day it was published. */
export interface CurrentRate {
  rate: number;
  date: string;
}

/** The latest rate of every currency; the base currency is always there, at 1. */
export type RateTable = ReadonlyMap<string, CurrentRate>;

/** Prices in the base currency are kept to this many decimals: a millionth of a euro. */
const BASE_DECIMALS = 1e6;

/** A price in its own currency, in the base currency; null when there is no price or no rate for its currency. */
export function toBase(amount: number | null, currency: string, rates: RateTable): number | null {
  if (amount === null) return null;
  if (currency === BASE_CURRENCY) return amount;
  const rate = rates.get(currency);
  if (rate === undefined) return null;
  return Math.round((amount / rate.rate) * BASE_DECIMALS) / BASE_DECIMALS;
}

/** A price in the base currency, in `currency`; null when there is no rate for it. */
export function fromBase(amount: number | null, currency: string, rates: RateTable): number | null {
  if (amount === null) return null;
  if (currency === BASE_CURRENCY) return amount;
  const rate = rates.get(currency);
  if (rate === undefined) return null;
  return Math.round(amount * rate.rate * 100) / 100;
}
