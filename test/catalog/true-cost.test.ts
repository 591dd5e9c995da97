// The true cost of a plan: what it is sold at, per month and per year, the setup fee and the first year.
import { describe, expect, it } from 'vitest';
import { canonicalPeriod } from '../../src/catalog/billing-periods.js';
import { monthlyEquivalent, termMonths, trueCost, type PricedContent } from '../../src/catalog/true-cost.js';

function plan(price: number | null, tiers: [string, number][] = [], extra: Partial<PricedContent> = {}): PricedContent {
  return {
    price,
    pricing_tiers:
      tiers.length === 0
        ? null
        : tiers.map(([period, amount]) => ({ period, price: amount, canonical_period: canonicalPeriod(period) })),
    setup_fee: null,
    contract_duration: null,
    ...extra,
  };
}

describe('the true cost', () => {
  it.each([
    // name, plan, basis [price, period], monthly, equivalent?, yearly, yearly equivalent?, first term [months, cost]
    ['a plain monthly price', plan(5), [5, 'monthly'], 5, false, 60, true, [12, 60]],
    [
      'monthly and yearly tiers',
      plan(5, [
        ['Monthly', 5],
        ['Annually', 50],
      ]),
      [5, 'monthly'],
      5,
      false,
      50,
      false,
      [12, 50],
    ],
    ['a setup fee', plan(5, [['monthly', 5]], { setup_fee: 10 }), [5, 'monthly'], 5, false, 60, true, [12, 70]],
    ['only a yearly tier, no price', plan(null, [['1 year', 120]]), [120, 'annually'], 10, true, 120, false, [12, 120]],
    [
      'only a yearly tier, price the same',
      plan(120, [['Annually', 120]]),
      [120, 'annually'],
      10,
      true,
      120,
      false,
      [12, 120],
    ],
    [
      'a price unlike its yearly tier: per month',
      plan(12, [['Annually', 120]]),
      [12, 'monthly'],
      12,
      false,
      120,
      false,
      [12, 120],
    ],
    ['quarterly only', plan(null, [['Quarterly', 30]]), [30, 'quarterly'], 10, true, 120, true, [12, 120]],
    [
      'the shortest of several',
      plan(null, [
        ['Annually', 100],
        ['Semi-Annually', 60],
      ]),
      [60, 'semiannually'],
      10,
      true,
      100,
      false,
      [12, 100],
    ],
    [
      'every two years only: the minimum term',
      plan(null, [['Biennially', 200]], { setup_fee: 20 }),
      [200, 'biennially'],
      8.333333,
      true,
      100,
      true,
      [24, 220],
    ],
    [
      'a 24-month contract',
      plan(
        10,
        [
          ['Monthly', 10],
          ['Annually', 100],
        ],
        { contract_duration: 'P24M' },
      ),
      [10, 'monthly'],
      10,
      false,
      100,
      false,
      [24, 200],
    ],
    [
      'a 2-year contract in years',
      plan(10, [], { contract_duration: 'P2Y' }),
      [10, 'monthly'],
      10,
      false,
      120,
      true,
      [24, 240],
    ],
    [
      'an 18-month contract, yearly tier',
      plan(null, [['Annually', 100]], { contract_duration: 'P18M' }),
      [100, 'annually'],
      8.333333,
      true,
      100,
      false,
      [18, 200],
    ],
  ] as const)('%s', (_name, content, basis, monthly, equivalent, yearly, yearlyEquivalent, firstTerm) => {
    const cost = trueCost(content);
    expect([cost.basis?.price, cost.basis?.period]).toEqual(basis);
    expect(cost.monthly).toBe(monthly);
    expect(cost.monthly_is_equivalent).toBe(equivalent);
    expect(cost.yearly).toBe(yearly);
    expect(cost.yearly_is_equivalent).toBe(yearlyEquivalent);
    expect([cost.first_term?.months, cost.first_term?.cost]).toEqual(firstTerm);
  });

  it('never calls a yearly price monthly: a yearly-only plan is per year, its monthly figure an equivalent', () => {
    const cost = trueCost(plan(null, [['Annually', 49]]));
    expect(cost.basis?.period).toBe('annually');
    expect(cost.monthly_is_equivalent).toBe(true);
    expect(cost.monthly).toBeCloseTo(4.083333, 6);
  });

  it('has nothing to say about a plan on request, or one sold by the hour only', () => {
    expect(trueCost(plan(null))).toMatchObject({ basis: null, monthly: null, yearly: null, first_term: null });
    const hourly = trueCost(plan(null, [['hourly', 0.01]]));
    expect(hourly.basis).toEqual({ price: 0.01, period: 'hourly', label: 'hourly' });
    expect([hourly.monthly, hourly.yearly, hourly.first_term]).toEqual([null, null, null]);
    const unknown = trueCost(plan(null, [['per lunar month', 9]]));
    expect(unknown.basis).toEqual({ price: 9, period: null, label: 'per lunar month' });
    expect(unknown.monthly).toBeNull();
  });

  it('takes the monthly equivalent the database sorts by from the same rule', () => {
    expect(monthlyEquivalent(plan(120, [['Annually', 120]]))).toBe(10);
    expect(monthlyEquivalent(plan(4.99))).toBe(4.99);
    expect(monthlyEquivalent(plan(null))).toBeNull();
  });

  it.each([
    [null, null],
    ['none', null],
    ['P12M', 12],
    ['P1Y', 12],
    ['P2W', 1],
    ['P400D', 14],
    ['Month-to-month', null],
  ])('reads the minimum term %s as %s months', (duration, months) => {
    expect(termMonths(duration)).toBe(months);
  });
});
