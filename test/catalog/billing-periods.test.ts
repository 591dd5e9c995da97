// canonicalPeriod against the spellings billing systems send, and the labels and month counts of what it answers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CANONICAL_PERIODS,
  canonicalPeriod,
  monthsPerPeriod,
  periodLabel,
  type CanonicalPeriod,
} from '../../src/catalog/billing-periods.js';

type Row = readonly [sent: string, expected: CanonicalPeriod | null];

const WHMCS: readonly Row[] = [
  // GetProducts pricing keys
  ['monthly', 'monthly'],
  ['quarterly', 'quarterly'],
  ['semiannually', 'semiannually'],
  ['annually', 'annually'],
  ['biennially', 'biennially'],
  ['triennially', 'triennially'],
  // AddProduct pay types
  ['onetime', 'one_time'],
  ['free', null],
  ['recurring', null],
  // cycle names shown on order forms and invoices
  ['Monthly', 'monthly'],
  ['Quarterly', 'quarterly'],
  ['Semi-Annually', 'semiannually'],
  ['Annually', 'annually'],
  ['Biennially', 'biennially'],
  ['Triennially', 'triennially'],
  ['One Time', 'one_time'],
  ['Free Account', null],
];

const BLESTA: readonly Row[] = [
  ['1 day', 'daily'],
  ['7 day', 'weekly'],
  ['1 week', 'weekly'],
  ['1 month', 'monthly'],
  ['3 month', 'quarterly'],
  ['6 month', 'semiannually'],
  ['12 month', 'annually'],
  ['24 month', 'biennially'],
  ['36 month', 'triennially'],
  ['1 year', 'annually'],
  ['2 year', 'biennially'],
  ['3 year', 'triennially'],
  ['onetime', 'one_time'],
  ['0 onetime', 'one_time'],
  ['2 week', null],
  ['18 month', null],
  ['4 year', null],
  ['30 day', null],
];

const HOSTBILL: readonly Row[] = [
  ['h', 'hourly'],
  ['d', 'daily'],
  ['w', 'weekly'],
  ['m', 'monthly'],
  ['q', 'quarterly'],
  ['s', 'semiannually'],
  ['a', 'annually'],
  ['b', 'biennially'],
  ['t', 'triennially'],
  ['M', 'monthly'],
  ['Once', 'one_time'],
  ['once', 'one_time'],
  ['Free', null],
  ['p4', null],
  ['p5', null],
  ['Quadrennially', null],
  ['Quinquennially', null],
  ['Hourly', 'hourly'],
  ['Daily', 'daily'],
  ['Weekly', 'weekly'],
];

const PLAIN_ENGLISH: readonly Row[] = [
  ['month', 'monthly'],
  ['per month', 'monthly'],
  ['/mo', 'monthly'],
  ['mo', 'monthly'],
  ['/month', 'monthly'],
  ['a month', 'monthly'],
  ['every month', 'monthly'],
  ['one month', 'monthly'],
  ['01 month', 'monthly'],
  ['1m', 'monthly'],
  ['pcm', 'monthly'],
  ['3 months', 'quarterly'],
  ['three months', 'quarterly'],
  ['quarter', 'quarterly'],
  ['per quarter', 'quarterly'],
  ['qtr', 'quarterly'],
  ['6 months', 'semiannually'],
  ['six months', 'semiannually'],
  ['semi_annually', 'semiannually'],
  ['semiannual', 'semiannually'],
  ['Semi-Annual', 'semiannually'],
  ['half-yearly', 'semiannually'],
  ['half year', 'semiannually'],
  ['2 quarters', 'semiannually'],
  ['12 months', 'annually'],
  ['twelve months', 'annually'],
  ['yearly', 'annually'],
  ['annual', 'annually'],
  ['year', 'annually'],
  ['yr', 'annually'],
  ['/yr', 'annually'],
  ['per year', 'annually'],
  ['1 year', 'annually'],
  ['1y', 'annually'],
  ['per annum', 'annually'],
  ['p.a.', 'annually'],
  ['24 months', 'biennially'],
  ['2 years', 'biennially'],
  ['two years', 'biennially'],
  ['every 2 years', 'biennially'],
  ['biennial', 'biennially'],
  ['36 months', 'triennially'],
  ['3 years', 'triennially'],
  ['three years', 'triennially'],
  ['triennial', 'triennially'],
  ['hourly', 'hourly'],
  ['1 hour', 'hourly'],
  ['per hour', 'hourly'],
  ['/hr', 'hourly'],
  ['an hour', 'hourly'],
  ['daily', 'daily'],
  ['1 day', 'daily'],
  ['per day', 'daily'],
  ['24 hours', 'daily'],
  ['weekly', 'weekly'],
  ['1 week', 'weekly'],
  ['7 days', 'weekly'],
  ['seven days', 'weekly'],
  ['per week', 'weekly'],
  ['one_time', 'one_time'],
  ['one-time', 'one_time'],
  ['one time', 'one_time'],
  ['ONETIME', 'one_time'],
  ['one-off', 'one_time'],
  ['lifetime', 'one_time'],
  ['Lifetime', 'one_time'],
  ['  Monthly  ', 'monthly'],
  ['\tANNUALLY\n', 'annually'],
  ['SEMI ANNUALLY', 'semiannually'],
  ['Semi.Annually', 'semiannually'],
];

const NEGATIVE: readonly Row[] = [
  ['', null],
  ['   ', null],
  ['-', null],
  ['biannually', null],
  ['Bi-Annually', null],
  ['biannual', null],
  ['biyearly', null],
  ['biweekly', null],
  ['bimonthly', null],
  ['fortnightly', null],
  ['2 weeks', null],
  ['5 months', null],
  ['4 years', null],
  ['18 months', null],
  ['30 days', null],
  ['52 weeks', null],
  ['365 days', null],
  ['1.5 years', null],
  ['1 2 months', null],
  ['months', null],
  ['years', null],
  ['0 months', null],
  ['minute', null],
  ['per minute', null],
  ['y', null],
  ['am', null],
  ['monthly monthly', null],
  ['monthlyy', null],
  ['mönthly', null],
  ['quadrennially', null],
  ['decade', null],
  ['recurring', null],
  ['1', null],
  ['12', null],
  ['__proto__', null],
  ['constructor', null],
  ['toString', null],
];

describe('canonicalPeriod', () => {
  describe.each([
    ['WHMCS', WHMCS],
    ['Blesta', BLESTA],
    ['HostBill', HOSTBILL],
    ['plain English', PLAIN_ENGLISH],
    ['negative cases', NEGATIVE],
  ] as const)('%s', (_source, rows) => {
    it.each(rows)('%j → %s', (sent, expected) => {
      expect(canonicalPeriod(sent)).toBe(expected);
    });
  });

  it('recognises every canonical period under its own name and under its label', () => {
    for (const period of CANONICAL_PERIODS) {
      expect(canonicalPeriod(period)).toBe(period);
      expect(canonicalPeriod(periodLabel(period))).toBe(period);
    }
  });

  const recognised = [...WHMCS, ...BLESTA, ...HOSTBILL, ...PLAIN_ENGLISH].filter(
    (row): row is readonly [string, CanonicalPeriod] => row[1] !== null,
  );
  const separator = fc.constantFrom(' ', '  ', '-', '_', '.', '/', '\t', '\n', ',', ':', '(', ')', '\u00a0', '·');

  it('ignores case, surrounding whitespace and punctuation between letters', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...recognised),
        fc.infiniteStream(fc.tuple(fc.boolean(), fc.option(separator, { freq: 3 }))),
        fc.stringMatching(/^\s{0,3}$/),
        fc.stringMatching(/^\s{0,3}$/),
        ([sent, expected], choices, before, after) => {
          // Each character gets a random case and may be followed by a separator, except inside a number: a
          // separator between two digits splits them ('1 2 months' is not '12 months').
          const chars = [...sent];
          let variant = before;
          const draws = choices[Symbol.iterator]();
          chars.forEach((ch, k) => {
            const [upper, sep] = draws.next().value as [boolean, string | null];
            variant += upper ? ch.toUpperCase() : ch.toLowerCase();
            const next = chars[k + 1];
            if (sep !== null && next !== undefined && !(/\d/.test(ch) && /\d/.test(next))) variant += sep;
          });
          variant += after;
          fc.pre([...variant].length <= 50);
          expect(canonicalPeriod(variant)).toBe(expected);
        },
      ),
    );
  });

  it('names a count of months only when it is a whole canonical period, and says how many months that is', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 120 }), fc.constantFrom('months', 'month', 'mo', 'm'), (n, unit) => {
        const period = canonicalPeriod(`${n} ${unit}`);
        if ([1, 3, 6, 12, 24, 36].includes(n)) {
          expect(period).not.toBeNull();
          expect(monthsPerPeriod(period as CanonicalPeriod)).toBe(n);
        } else {
          expect(period).toBeNull();
        }
      }),
    );
  });

  it('never throws, and answers null or a canonical period, for any string', () => {
    const anyString = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.string({ unit: 'grapheme', maxLength: 60 }),
    );
    fc.assert(
      fc.property(anyString, (sent) => {
        const period = canonicalPeriod(sent);
        expect(period === null || CANONICAL_PERIODS.includes(period)).toBe(true);
      }),
    );
  });

  it('answers null for a string longer than 50 characters, however it is padded', () => {
    expect(canonicalPeriod('monthly'.padEnd(50))).toBe('monthly');
    expect(canonicalPeriod('monthly'.padEnd(51))).toBeNull();
    // 50 code points that take 100 UTF-16 units are still within the limit
    expect(canonicalPeriod('monthly' + '\u{1F600}'.repeat(43))).toBe('monthly');
    expect(canonicalPeriod('monthly' + '\u{1F600}'.repeat(44))).toBeNull();
    expect(canonicalPeriod(' '.repeat(1_000_000) + 'monthly')).toBeNull();
    expect(canonicalPeriod('m'.repeat(1_000_000))).toBeNull();
  });
});

describe('monthsPerPeriod and periodLabel', () => {
  it.each([
    ['hourly', null, 'per hour'],
    ['daily', null, 'per day'],
    ['weekly', null, 'per week'],
    ['monthly', 1, 'per month'],
    ['quarterly', 3, 'per quarter'],
    ['semiannually', 6, 'per 6 months'],
    ['annually', 12, 'per year'],
    ['biennially', 24, 'per 2 years'],
    ['triennially', 36, 'per 3 years'],
    ['one_time', null, 'one-time'],
  ] as const)('%s lasts %s months and reads "%s"', (period, months, label) => {
    expect(monthsPerPeriod(period)).toBe(months);
    expect(periodLabel(period)).toBe(label);
  });
});
