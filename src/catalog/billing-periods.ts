// Billing periods (contract section 4): a billing system's own spelling of a period, mapped to one canonical period.
//
// Spellings are compared by their letters and digits only: case, whitespace and punctuation ('-', '_', '.', '/', …)
// are dropped, so 'Semi-Annually', 'semi_annually' and ' SEMIANNUALLY ' are one key, and '/mo' is 'mo'. Every
// spelling we recognise is put in one Map when the module loads; a call normalises once and looks up once.
//
// Where the vendors' names come from:
// - WHMCS: the pricing keys of GetProducts (https://developers.whmcs.com/api-reference/getproducts/): `monthly`,
//   `quarterly`, `semiannually`, `annually`, `biennially`, `triennially`; the pay types of AddProduct
//   (https://developers.whmcs.com/api-reference/addproduct/): `free`, `onetime`, `recurring`; and the cycle names
//   its client area shows: `Monthly`, `Quarterly`, `Semi-Annually`, `Annually`, `Biennially`, `Triennially`,
//   `One Time`, `Free Account` (not in the API reference; WHMCS add-ons map 'free account' to the `free` pay type).
//   WHMCS has no hourly, daily or weekly cycle.
// - Blesta: package pricing is a `term` and a `period`, the period one of `day`, `week`, `month`, `year`, `onetime`
//   (the docblock of `Packages::add` in Blesta's app/models/packages.php, published at
//   https://source-docs.blesta.com/classes/Packages.html); a one-time price is stored with term 0. So '1 month',
//   '12 month', '2 year', '7 day', 'onetime' and '0 onetime' are all recognised.
// - HostBill: the `cycle` of addOrder (https://api2.hostbillapp.com/orders/addOrder.html) and `new_billing` of
//   orderUpgrade: 'm','q','s','a','b','t','d','w','h' or 'Free' or 'Once'. HostBill's four- and five-year cycles
//   (`p4`, `p5`, shown as Quadrennially and Quinquennially) were not found in its API pages; they have no canonical
//   period here either way, so they are not recognised.
//
// Decisions:
// - 'biannual(ly)', 'bi-yearly' are left unrecognised: dictionaries say twice a year (6 months), many price lists
//   use it for every two years (24 months). A wrong guess would make a derived monthly price four times off; left
//   unrecognised, the period is shown exactly as sent and never used to derive one. 'biweekly', 'bimonthly',
//   'fortnightly' have no canonical period at all.
// - 'free' and 'Free Account' (WHMCS's and HostBill's pay type for products without a price) name no period: they
//   say what is charged, not how often. Mapping them to one_time would claim a one-off charge; they are not
//   recognised.
// - 'lifetime', 'once', 'one-off' are one_time: paid once, never renewed.
// - A count of units is recognised only when it is exactly a canonical period: '3 months' is quarterly, '24 hours'
//   daily, '7 days' weekly, '12 months' annually; '4 years', '5 months', '2 weeks', '30 days', '52 weeks' are not
//   (a month is not a whole number of days or weeks).

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

const MONTHS: Readonly<Record<CanonicalPeriod, number | null>> = {
  hourly: null,
  daily: null,
  weekly: null,
  monthly: 1,
  quarterly: 3,
  semiannually: 6,
  annually: 12,
  biennially: 24,
  triennially: 36,
  one_time: null,
};

const LABELS: Readonly<Record<CanonicalPeriod, string>> = {
  hourly: 'per hour',
  daily: 'per day',
  weekly: 'per week',
  monthly: 'per month',
  quarterly: 'per quarter',
  semiannually: 'per 6 months',
  annually: 'per year',
  biennially: 'per 2 years',
  triennially: 'per 3 years',
  one_time: 'one-time',
};

/** How many months one period of this kind lasts; null for hourly/daily/weekly/one_time (not a whole number of months). */
export function monthsPerPeriod(period: CanonicalPeriod): number | null {
  return MONTHS[period];
}

/** Human label after a price: 'per hour', 'per day', 'per week', 'per month', 'per quarter', 'per 6 months', 'per year', 'per 2 years', 'per 3 years', 'one-time'. */
export function periodLabel(period: CanonicalPeriod): string {
  return LABELS[period];
}

// ------------------------------------------------------------------------------------------- the spellings

/** Names of a period on their own, already reduced to letters and digits. */
const NAMES: Readonly<Record<CanonicalPeriod, readonly string[]>> = {
  hourly: ['hourly', 'h'],
  daily: ['daily', 'd'],
  weekly: ['weekly', 'w'],
  monthly: ['monthly', 'pcm', 'm'],
  quarterly: ['quarterly', 'q'],
  semiannually: ['semiannually', 'semiannual', 'semiyearly', 'halfyearly', 'halfyear', 'sixmonthly', 's'],
  annually: ['annually', 'annual', 'yearly', 'perannum', 'pa', 'a'],
  biennially: ['biennially', 'biennial', 'b'],
  triennially: ['triennially', 'triennial', 't'],
  // Blesta stores a one-time price with term 0; a client joining term and period sends '0 onetime' (or '1 onetime',
  // the term's default).
  one_time: ['onetime', '0onetime', '1onetime', 'once', 'oneoff', 'lifetime'],
};

/** A unit of time, measured either in hours or in months, never both (a month is not a whole number of hours). */
interface Unit {
  readonly hours?: number;
  readonly months?: number;
  /** Word spellings of the unit; `letter`, if any, is its one-letter abbreviation, used only after digits ('12m'). */
  readonly singular: readonly string[];
  readonly plural: readonly string[];
  readonly letter?: string;
}

const UNITS: readonly Unit[] = [
  { hours: 1, singular: ['hour', 'hr'], plural: ['hours', 'hrs'], letter: 'h' },
  { hours: 24, singular: ['day'], plural: ['days'], letter: 'd' },
  { hours: 24 * 7, singular: ['week', 'wk'], plural: ['weeks', 'wks'], letter: 'w' },
  { months: 1, singular: ['month', 'mo', 'mth'], plural: ['months', 'mos', 'mths'], letter: 'm' },
  { months: 3, singular: ['quarter', 'qtr'], plural: ['quarters', 'qtrs'] },
  { months: 12, singular: ['year', 'yr'], plural: ['years', 'yrs'], letter: 'y' },
];

const BY_HOURS: ReadonlyMap<number, CanonicalPeriod> = new Map([
  [1, 'hourly'],
  [24, 'daily'],
  [24 * 7, 'weekly'],
]);
const BY_MONTHS: ReadonlyMap<number, CanonicalPeriod> = new Map(
  CANONICAL_PERIODS.flatMap((period) => {
    const months = MONTHS[period];
    return months === null ? [] : [[months, period] as const];
  }),
);

/** Counts written as words, joined as the normaliser joins them ('twenty-four' → 'twentyfour'). */
const COUNT_WORDS: ReadonlyMap<number, string> = new Map([
  [1, 'one'],
  [2, 'two'],
  [3, 'three'],
  [4, 'four'],
  [6, 'six'],
  [7, 'seven'],
  [8, 'eight'],
  [12, 'twelve'],
  [24, 'twentyfour'],
  [36, 'thirtysix'],
]);

/** Words before a single unit or a count of units: 'per month', 'every 3 months', 'each year', '$5 a month'. */
const PREFIXES = ['', 'per', 'every', 'each'] as const;
const ARTICLES = ['a', 'an'] as const;

/** The largest count worth generating: enough for 168 hours (a week) and 36 months (three years). */
const MAX_COUNT = 24 * 7;

function buildSpellings(): ReadonlyMap<string, CanonicalPeriod> {
  const spellings = new Map<string, CanonicalPeriod>();
  const add = (key: string, period: CanonicalPeriod): void => {
    const known = spellings.get(key);
    if (known !== undefined && known !== period) {
      throw new Error(`billing period spelling '${key}' names both ${known} and ${period}`);
    }
    spellings.set(key, period);
  };

  for (const period of CANONICAL_PERIODS) {
    add(period.replace('_', ''), period);
    for (const name of NAMES[period]) add(name, period);
  }

  for (const unit of UNITS) {
    const periodOf = (count: number): CanonicalPeriod | undefined =>
      unit.hours !== undefined ? BY_HOURS.get(count * unit.hours) : BY_MONTHS.get(count * (unit.months ?? 0));
    const words = [...unit.singular, ...unit.plural];
    const single = periodOf(1);
    if (single !== undefined) {
      // 'month', 'per month', 'every month', 'a month', '/mo'; a bare plural ('months') names no count.
      for (const word of unit.singular) {
        for (const prefix of [...PREFIXES, ...ARTICLES]) add(prefix + word, single);
      }
    }
    for (let count = 1; count <= MAX_COUNT; count++) {
      const period = periodOf(count);
      if (period === undefined) continue;
      const word = COUNT_WORDS.get(count);
      for (const prefix of PREFIXES) {
        // '12 months', '12 month' (Blesta), '12m', '1y', 'every 3 months', 'per 1 year'
        for (const unitWord of unit.letter === undefined ? words : [...words, unit.letter]) {
          add(`${prefix}${count}${unitWord}`, period);
        }
        // 'one month', 'twelve months', 'every two years'; never with a one-letter unit ('onem' is no spelling).
        if (word !== undefined) for (const unitWord of words) add(`${prefix}${word}${unitWord}`, period);
      }
    }
  }
  return spellings;
}

const SPELLINGS = buildSpellings();

/** The contract allows 1–50 characters (code points); a longer string is no period and is not read through. */
const MAX_LENGTH = 50;

function isTooLong(sent: string): boolean {
  if (sent.length <= MAX_LENGTH) return false;
  let codePoints = 0;
  for (const _ of sent) {
    if (++codePoints > MAX_LENGTH) return true;
  }
  return false;
}

/**
 * The letters and digits of `sent`, lower-cased, everything else dropped. Two runs of digits apart stay apart
 * ('1 2 months' must not read as '12 months'), and zeros leading a number are dropped ('01 month' is '1 month').
 */
function normalise(sent: string): string {
  const lower = sent.toLowerCase();
  let key = '';
  let separated = false;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if (isDigit(c)) {
      const afterDigit = isDigit(key.charCodeAt(key.length - 1));
      if (afterDigit && separated) key += ' ';
      const startsNumber = !afterDigit || separated;
      separated = false;
      if (c === 48 && startsNumber && isDigit(lower.charCodeAt(i + 1))) continue; // a leading zero
      key += lower[i];
    } else if (c >= 97 && c <= 122) {
      separated = false;
      key += lower[i];
    } else {
      separated = true;
    }
  }
  return key;
}

/** Whether a UTF-16 code unit is an ASCII digit (NaN, past either end of a string, is not). */
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The canonical period a billing system's spelling names, or null when it names none we know. */
export function canonicalPeriod(sent: string): CanonicalPeriod | null {
  if (typeof sent !== 'string' || isTooLong(sent)) return null;
  return SPELLINGS.get(normalise(sent)) ?? null;
}
