// Answers kept by their argument: computed once each, the same answer however often asked, and bounded.
import { describe, expect, it } from 'vitest';
import { keptAnswers } from '../../src/catalog/kept.js';

describe('keptAnswers', () => {
  it('computes each argument once, undefined and null answers included', () => {
    const asked: string[] = [];
    const answer = keptAnswers(10, (key: string) => {
      asked.push(key);
      return key === 'none' ? undefined : key === 'null' ? null : key.length;
    });
    expect([answer('abc'), answer('none'), answer('null'), answer('abc'), answer('none'), answer('null')]).toEqual([
      3,
      undefined,
      null,
      3,
      undefined,
      null,
    ]);
    expect(asked).toEqual(['abc', 'none', 'null']);
  });

  it('keeps at most its bound, and answers the same past it', () => {
    let computed = 0;
    const double = keptAnswers(3, (n: number) => (computed++, n * 2));
    for (let round = 0; round < 3; round++) for (let n = 0; n < 5; n++) expect(double(n)).toBe(n * 2);
    // Five arguments against a bound of three: forgotten and computed again, never wrong.
    expect(computed).toBeGreaterThan(5);
    const settled = computed;
    expect([double(4), double(4)]).toEqual([8, 8]);
    expect(computed).toBe(settled);
  });
});
