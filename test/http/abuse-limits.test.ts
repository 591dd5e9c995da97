// The in-memory guards against abuse: bounded in size, and exact about their limits.
import { describe, expect, it } from 'vitest';
import { AuthFailures } from '../../src/http/auth-failures.js';
import { BodyMemory } from '../../src/http/body.js';

describe('AuthFailures', () => {
  it('blocks an address at the limit until its window ends', () => {
    const failures = new AuthFailures(3, 60);
    const t0 = 1_000_000;
    for (let k = 0; k < 2; k++) failures.recordFailure('10.0.0.1', t0 + k);
    expect(failures.blockedFor('10.0.0.1', t0 + 10)).toBe(0);
    failures.recordFailure('10.0.0.1', t0 + 20);
    expect(failures.blockedFor('10.0.0.1', t0 + 20)).toBe(60);
    expect(failures.blockedFor('10.0.0.2', t0 + 20)).toBe(0);
    expect(failures.blockedFor('10.0.0.1', t0 + 59_500)).toBe(1);
    expect(failures.blockedFor('10.0.0.1', t0 + 60_000)).toBe(0);
    // A new window starts from zero.
    failures.recordFailure('10.0.0.1', t0 + 60_001);
    expect(failures.blockedFor('10.0.0.1', t0 + 60_002)).toBe(0);
  });

  it('tracks a bounded number of addresses however many try', () => {
    const failures = new AuthFailures(20, 60, 1_000);
    for (let k = 0; k < 50_000; k++) failures.recordFailure(`2001:db8::${k.toString(16)}`, 1_000 + k);
    expect(failures.tracked).toBeLessThanOrEqual(1_000);
    // The newest addresses are the ones kept.
    for (let k = 0; k < 19; k++) failures.recordFailure('2001:db8::c34f', 60_000);
    expect(failures.blockedFor('2001:db8::c34f', 60_000)).toBeGreaterThan(0);
  });
});

describe('BodyMemory', () => {
  it('grants bytes up to its limit and takes them back per request', () => {
    const memory = new BodyMemory(100);
    const a = {};
    const b = {};
    expect(memory.reserve(a, 60)).toBeNull();
    expect(memory.reserve(b, 41)).toBe('process');
    expect(memory.reserve(b, 40)).toBeNull();
    expect(memory.inUse).toBe(100);
    memory.release(a);
    memory.release(a);
    expect(memory.inUse).toBe(40);
    expect(memory.reserve(a, 60)).toBeNull();
    memory.release(b);
    memory.release(a);
    expect(memory.inUse).toBe(0);
  });

  it("keeps each provider within its share, whatever the others' requests hold", () => {
    const memory = new BodyMemory(100, 50);
    const [a1, a2, b1, c1] = [{}, {}, {}, {}];
    expect(memory.reserve(a1, 30, 'a')).toBeNull();
    expect(memory.reserve(a2, 21, 'a')).toBe('group');
    expect(memory.reserve(a2, 20, 'a')).toBeNull();
    expect(memory.inUseBy('a')).toBe(50);
    expect(memory.reserve(b1, 50, 'b')).toBeNull();
    expect(memory.reserve(c1, 1, 'c')).toBe('process');
    memory.release(a1);
    expect(memory.inUseBy('a')).toBe(20);
    expect(memory.reserve(c1, 30, 'c')).toBeNull();
    for (const holder of [a2, b1, c1]) memory.release(holder);
    expect([memory.inUse, memory.inUseBy('a'), memory.inUseBy('b'), memory.inUseBy('c')]).toEqual([0, 0, 0, 0]);
  });
});
