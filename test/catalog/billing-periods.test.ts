// Billing periods as billing systems spell them, mapped to the canonical periods (contract section 4).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANONICAL_PERIODS, canonicalPeriod, monthsPerPeriod, type CanonicalPeriod } from '../../src/catalog/billing-periods.js';

const TABLE: [source: string, sent: string, expected: CanonicalPeriod | null][] = [
  // WHMCS: GetProducts pricing keys, the client area's names, and the pay types.
  ['WHMCS', 'monthly', 'monthly'],
  ['WHMCS', 'quarterly', 'quarterly'],
  ['WHMCS', 'semiannually', 'semiannually'],
  ['WHMCS', 'annually', 'annually'],
  ['WHMCS', 'biennially', 'biennially'],
  ['WHMCS', 'triennially', 'triennially'],
  ['WHMCS', 'Monthly', 'monthly'],
  ['WHMCS', 'Quarterly', 'quarterly'],
  ['WHMCS', 'Semi-Annually', 'semiannually'],
  ['WHMCS', 'Annually', 'annually'],
  ['WHMCS', 'Biennially', 'biennially'],
  ['WHMCS', 'Triennially', 'triennially'],
  ['WHMCS', 'One Time', 'one_time'],
  ['WHMCS', 'onetime', 'one_time'],
  ['WHMCS', 'Free Account', null],
  ['WHMCS', 'free', null],
  // Blesta: term and period ("<term> <period>"), period one of day, week, month, year, onetime.
  ['Blesta', '1 day', 'daily'],
  ['Blesta', '7 day', 'weekly'],
  ['Blesta', '1 week', 'weekly'],
  ['Blesta', '1 month', 'monthly'],
  ['Blesta', '3 month', 'quarterly'],
  ['Blesta', '6 month', 'semiannually'],
  ['Blesta', '12 month', 'annually'],
  ['Blesta', '24 month', 'biennially'],
  ['Blesta', '36 month', 'triennially'],
  ['Blesta', '1 year', 'annually'],
  ['Blesta', '2 year', 'biennially'],
  ['Blesta', '3 year', 'triennially'],
  ['Blesta', '0 onetime', null],
  ['Blesta', 'onetime', 'one_time'],
  ['Blesta', '5 year', null],
  // HostBill: its billing cycle codes and their spelled-out names.
  ['HostBill', 'h', 'hourly'],
  ['HostBill', 'd', 'daily'],
  ['HostBill', 'w', 'weekly'],
  ['HostBill', 'm', 'monthly'],
  ['HostBill', 'q', 'quarterly'],
  ['HostBill', 's', 'semiannually'],
  ['HostBill', 'a', 'annually'],
  ['HostBill', 'b', 'biennially'],
  ['HostBill', 't', 'triennially'],
  ['HostBill', 'p4', null],
  ['HostBill', 'p5', null],
  ['HostBill', 'Once', 'one_time'],
  ['HostBill', 'Hourly', 'hourly'],
  ['HostBill', 'Daily', 'daily'],
  ['HostBill', 'Weekly', 'weekly'],
  // The contract's and the issue's own examples, and plain English.
  ['English', 'month', 'monthly'],
  ['English', 'semi_annually', 'semiannually'],
  ['English', '6 months', 'semiannually'],
  ['English', 'yearly', 'annually'],
  ['English', '2 years', 'biennially'],
  ['English', '3 months', 'quarterly'],
  ['English', '12 months', 'annually'],
  ['English', '24 months', 'biennially'],
  ['English', '36 months', 'triennially'],
  ['English', 'per month', 'monthly'],
  ['English', '/mo', 'monthly'],
  ['English', 'mo', 'monthly'],
  ['English', '1mo', 'monthly'],
  ['English', 'per hour', 'hourly'],
  ['English', '1 hour', 'hourly'],
  ['English', '24 hours', 'daily'],
  ['English', 'per day', 'daily'],
  ['English', '7 days', 'weekly'],
  ['English', 'per week', 'weekly'],
  ['English', 'annual', 'annually'],
  ['English', 'year', 'annually'],
  ['English', 'yr', 'annually'],
  ['English', '/yr', 'annually'],
  ['English', 'per annum', 'annually'],
  ['English', 'quarter', 'quarterly'],
  ['English', 'half-yearly', 'semiannually'],
  ['English', 'half year', 'semiannually'],
  ['English', 'semiannual', 'semiannually'],
  ['English', 'Bi-Annually', 'semiannually'],
  ['English', 'biennial', 'biennially'],
  ['English', 'triennial', 'triennially'],
  ['English', 'one month', 'monthly'],
  ['English', 'two years', 'biennially'],
  ['English', 'three years', 'triennially'],
  ['English', 'six months', 'semiannually'],
  ['English', 'lifetime', 'one_time'],
  ['English', 'once', 'one_time'],
  ['English', 'one-off', 'one_time'],
  ['English', 'Billed Monthly', 'monthly'],
  ['English', 'every year', 'annually'],
  ['English', '  MONTHLY  ', 'monthly'],
  ['English', 'one_time', 'one_time'],
  // Periods that name none of the canonical ones: kept as sent, never a monthly price.
  ['none', '2 weeks', null],
  ['none', '5 months', null],
  ['none', '4 years', null],
  ['none', 'per fortnight', null],
  ['none', 'per lunar month', null],
  ['none', 'Every other Tuesday', null],
  ['none', 'monthly-ish', null],
  ['none', 'month to month', null],
  ['none', 'x', null],
  ['none', '12', null],
  ['none', '—', null],
  ['none', '月', null],
];

describe('canonicalPeriod', () => {
  it('holds at least 60 spellings, from WHMCS, Blesta, HostBill and plain English', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(60);
    for (const source of ['WHMCS', 'Blesta', 'HostBill']) expect(TABLE.some(([from]) => from === source)).toBe(true);
  });

  it.each(TABLE)('%s: %j → %s', (_, sent, expected) => {
    expect(canonicalPeriod(sent)).toBe(expected);
  });

  it('maps each canonical period to itself', () => {
    for (const period of CANONICAL_PERIODS) expect(canonicalPeriod(period)).toBe(period);
  });

  it('ignores case, surrounding space and punctuation in every recognised spelling', () => {
    const recognised = TABLE.filter(([, sent, expected]) => expected !== null && /[a-z]/i.test(sent));
    fc.assert(
      fc.property(
        fc.constantFrom(...recognised),
        fc.array(fc.boolean(), { maxLength: 60 }),
        fc.constantFrom('', ' ', '  ', '\t'),
        fc.constantFrom('', ' ', '.', ' '),
        ([, sent, expected], upper, before, after) => {
          const cased = Array.from(sent, (ch, k) => (upper[k % Math.max(upper.length, 1)] ? ch.toUpperCase() : ch.toLowerCase())).join('');
          expect(canonicalPeriod(`${before}${cased}${after}`)).toBe(expected);
        },
      ),
    );
  });

  it('never throws, and answers a canonical period or null, for any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ minLength: 1000, maxLength: 5000 })), (sent) => {
        const period = canonicalPeriod(sent);
        expect(period === null || (CANONICAL_PERIODS as readonly string[]).includes(period)).toBe(true);
      }),
    );
  });

  it('gives the length in months of the periods that have one', () => {
    expect(CANONICAL_PERIODS.map((period) => [period, monthsPerPeriod(period)])).toEqual([
      ['hourly', null], ['daily', null], ['weekly', null], ['monthly', 1], ['quarterly', 3], ['semiannually', 6],
      ['annually', 12], ['biennially', 24], ['triennially', 36], ['one_time', null],
    ]);
  });
});
