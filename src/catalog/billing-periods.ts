// Billing periods as billing systems name them ("Monthly", "Semi-Annually", "1 year", "12 month", HostBill's "a"),
// mapped to the directory's canonical periods (contract section 4, "Billing periods"). A spelling that names none
// of them is kept and shown as sent by the caller, and never used to derive a monthly price.
//
// Where the vendors' names come from:
// - WHMCS: the GetProducts API action (developers.whmcs.com/api-reference/getproducts) keys each currency's prices
//   by cycle: monthly, quarterly, semiannually, annually, biennially, triennially (plus msetupfee… for setup fees);
//   its client area spells them Monthly, Quarterly, Semi-Annually, Annually, Biennially, Triennially, One Time,
//   and a product's paytype is free, onetime or recurring.
// - Blesta: a package's pricing (GetPackage / packages API) has a term and a period, the period one of day,
//   week, month, year or onetime ("1 month", "12 month", "2 year").
// - HostBill: its API's billing cycle codes: h (hourly), d (daily), w (weekly), m (monthly), q (quarterly),
//   s (semi-annually), a (annually), b (biennially), t (triennially), p4 / p5 (4 and 5 years), and "Once" for a
//   one-time payment; spelled out as Hourly, Daily, Weekly, Monthly, Quarterly, Semi-Annually, Annually,
//   Biennially, Triennially.

export const CANONICAL_PERIODS = [
  'hourly',
  'daily',
  'weekly',
  'monthly',
  'quarterly',
  'semiannually',
  'annually',
  'biennially',
  'triennially',
  'one_time',
] as const;
export type CanonicalPeriod = (typeof CANONICAL_PERIODS)[number];

/** Whole words, after normalize(), that name a period on their own. */
const WORDS: Record<string, CanonicalPeriod> = {
  // hourly
  hourly: 'hourly', hour: 'hourly', hr: 'hourly', h: 'hourly', perhour: 'hourly', hourlybilling: 'hourly',
  // daily
  daily: 'daily', day: 'daily', d: 'daily', perday: 'daily',
  // weekly
  weekly: 'weekly', week: 'weekly', wk: 'weekly', w: 'weekly', perweek: 'weekly',
  // monthly
  monthly: 'monthly', month: 'monthly', mo: 'monthly', mon: 'monthly', mth: 'monthly', m: 'monthly', pm: 'monthly',
  permonth: 'monthly',
  // quarterly
  quarterly: 'quarterly', quarter: 'quarterly', q: 'quarterly', qtr: 'quarterly', perquarter: 'quarterly',
  // semiannually: "biannually" means twice a year, i.e. every six months ("biennially" is every two years).
  semiannually: 'semiannually', semiannual: 'semiannually', semiyearly: 'semiannually', halfyearly: 'semiannually',
  halfyear: 'semiannually', halfannually: 'semiannually', biannually: 'semiannually', biannual: 'semiannually',
  sixmonthly: 'semiannually', s: 'semiannually',
  // annually
  annually: 'annually', annual: 'annually', yearly: 'annually', year: 'annually', yr: 'annually', y: 'annually',
  a: 'annually', pa: 'annually', peryear: 'annually', perannum: 'annually', annum: 'annually',
  // biennially
  biennially: 'biennially', biennial: 'biennially', b: 'biennially', twoyearly: 'biennially',
  // triennially
  triennially: 'triennially', triennial: 'triennially', t: 'triennially', threeyearly: 'triennially',
  // one_time
  onetime: 'one_time', once: 'one_time', oneoff: 'one_time', lifetime: 'one_time', single: 'one_time',
  singlepayment: 'one_time', onetimepayment: 'one_time', otp: 'one_time',
};

/** Units of "<n> <unit>" spellings, and how many of each make the canonical periods that have a length. */
const UNITS: Record<string, 'hour' | 'day' | 'week' | 'month' | 'year'> = {
  hour: 'hour', hours: 'hour', hr: 'hour', hrs: 'hour', h: 'hour',
  day: 'day', days: 'day', d: 'day',
  week: 'week', weeks: 'week', wk: 'week', wks: 'week', w: 'week',
  month: 'month', months: 'month', mo: 'month', mos: 'month', mon: 'month', mth: 'month', mths: 'month', m: 'month',
  year: 'year', years: 'year', yr: 'year', yrs: 'year', y: 'year',
};

const BY_LENGTH: Record<string, CanonicalPeriod> = {
  '1 hour': 'hourly',
  '1 day': 'daily', '24 hour': 'daily',
  '1 week': 'weekly', '7 day': 'weekly',
  '1 month': 'monthly',
  '3 month': 'quarterly',
  '6 month': 'semiannually',
  '12 month': 'annually', '1 year': 'annually',
  '24 month': 'biennially', '2 year': 'biennially',
  '36 month': 'triennially', '3 year': 'triennially',
};

const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, six: 6, seven: 7, twelve: 12, a: 1, an: 1, half: 0.5,
};

// Words that say "per"/"every"/"billed" around a period and carry no meaning of their own.
const FILLER = new Set(['per', 'every', 'each', 'billed', 'billing', 'cycle', 'payment', 'paid', 'pay', 'term', 'plan', 'a', 'an', 'the', 'x']);

const MONTHS_PER: Partial<Record<CanonicalPeriod, number>> = {
  monthly: 1,
  quarterly: 3,
  semiannually: 6,
  annually: 12,
  biennially: 24,
  triennially: 36,
};

/** How many months one period of this kind lasts; null for periods that are not a whole number of months. */
export function monthsPerPeriod(period: CanonicalPeriod): number | null {
  return MONTHS_PER[period] ?? null;
}

/** Lower case, letters and digits only, words split on anything else ("Semi-Annually" → ["semi", "annually"]). */
function wordsOf(sent: string): string[] {
  return sent
    .toLowerCase()
    .replace(/(\d)([a-z])/g, '$1 $2')
    .replace(/([a-z])(\d)/g, '$1 $2')
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

// Spellings seen before: a sync sends the same few periods thousands of times.
const seen = new Map<string, CanonicalPeriod | null>();
const SEEN_MAX = 1000;

/** The canonical period a billing system's spelling names, or null when it names none the directory knows. */
export function canonicalPeriod(sent: string): CanonicalPeriod | null {
  const known = seen.get(sent);
  if (known !== undefined) return known;
  const period = sent.length > 100 ? null : recognise(wordsOf(sent));
  if (seen.size < SEEN_MAX) seen.set(sent, period);
  return period;
}

function recognise(all: string[]): CanonicalPeriod | null {
  // "per month", "/mo", "billed yearly": drop the words around the period, unless that leaves nothing.
  const words = all.filter((word) => !FILLER.has(word));
  if (words.length === 0) return all.length === 1 ? (WORDS[all[0]!] ?? null) : null;
  const joined = words.join('');
  if (words.length <= 3 && WORDS[joined] !== undefined) return WORDS[joined];
  if (words.length === 2) {
    // "<n> <unit>", n in digits or words: "1 month", "12 month", "2 years", "one time", "six months".
    const [count, unitWord] = words as [string, string];
    const n = /^\d{1,3}$/.test(count) ? Number(count) : NUMBER_WORDS[count];
    if (n === 1 && unitWord === 'time') return 'one_time';
    const unit = UNITS[unitWord];
    if (n !== undefined && unit !== undefined) {
      if (n === 0.5 && unit === 'year') return 'semiannually';
      return BY_LENGTH[`${n} ${unit}`] ?? null;
    }
  }
  return null;
}
