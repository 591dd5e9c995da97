import { afterEach, describe, expect, it, vi } from 'vitest';
import { idPattern, newId } from '../../src/catalog/ids.js';

describe('newId', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is the prefix, an underscore and a 26-character Crockford base32 ULID', () => {
    expect(newId('prd')).toMatch(/^prd_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newId('syn')).toMatch(/^syn_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newId('key')).toMatch(/^key_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newId('req')).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
    for (const prefix of ['prd', 'syn', 'key', 'req', 'ins'] as const) {
      expect(newId(prefix)).toMatch(new RegExp(idPattern(prefix)));
      expect(newId(prefix)).toMatch(new RegExp(idPattern()));
      expect(newId(prefix === 'prd' ? 'syn' : 'prd')).not.toMatch(new RegExp(idPattern(prefix)));
    }
  });

  it('makes 10 000 unique ids that sort in creation order', () => {
    const ids = Array.from({ length: 10_000 }, () => newId('prd'));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });

  it('starts with the creation time in milliseconds', () => {
    const before = Date.now();
    const id = newId('syn');
    const after = Date.now();
    let ms = 0;
    for (const ch of id.slice(4, 14)) ms = ms * 32 + '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(ch);
    // Monotonicity may carry an earlier test's millisecond forward, never backward.
    expect(ms).toBeLessThanOrEqual(after);
    expect(ms).toBeGreaterThanOrEqual(before - 1000);
  });

  it('stays increasing within one millisecond and when the clock steps back', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t = Date.now() + 60_000;
    const at = (ms: number) => {
      vi.setSystemTime(ms);
      return newId('prd').slice(4);
    };
    const ids = [at(t), at(t), at(t), at(t - 5_000), at(t - 5_000), at(t + 1)];
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    // Same millisecond, or an earlier one: the time part stays; a later millisecond moves it on.
    expect(ids[1]!.slice(0, 10)).toBe(ids[0]!.slice(0, 10));
    expect(ids[3]!.slice(0, 10)).toBe(ids[0]!.slice(0, 10));
    expect(ids[5]!.slice(0, 10)).not.toBe(ids[0]!.slice(0, 10));
  });
});
