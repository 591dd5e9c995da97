// The price chart: a step line of the monthly price, named and described for assistive technology.
import { describe, expect, it } from 'vitest';
import { priceChart, type ChartPoint } from '../../src/web/price-chart.js';

const point = (from: string, to: string | null, monthly_price: number | null, currency = 'USD'): ChartPoint => ({
  from,
  to,
  monthly_price,
  currency,
});

describe('priceChart', () => {
  it('draws one level per price, stepping at each change, with a title and a description', () => {
    const svg = priceChart(
      [
        point('2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z', 10),
        point('2026-02-01T00:00:00Z', '2026-03-01T00:00:00Z', 8),
        point('2026-03-01T00:00:00Z', null, 12),
      ],
      'USD',
      '2026-04-01T00:00:00Z',
    )!.value;
    expect(svg).toMatch(/^<svg class="chart" role="img" aria-labelledby="price-chart-title price-chart-desc"/);
    expect(svg).toContain('<title id="price-chart-title">Monthly price over time, in USD</title>');
    expect(svg).toContain(
      '<desc id="price-chart-desc">From $10.00 on Jan 1, 2026 to $12.00 now; lowest $8.00, highest $12.00, 3 prices.</desc>',
    );
    const d = /<path d="([^"]+)"/.exec(svg)![1]!;
    // One move, then a vertical and a horizontal line per change: three levels in all.
    expect(d.match(/M/g)).toHaveLength(1);
    expect(d.match(/H/g)).toHaveLength(3);
    expect(d.match(/L/g)).toHaveLength(2);
    const levels = [...d.matchAll(/[ML][\d.]+ ([\d.]+)/g)].map((m) => Number(m[1]));
    // SVG's y grows downwards: $8 is lowest on the page's scale, so drawn below $10 and $12.
    expect(levels[1]!).toBeGreaterThan(levels[0]!);
    expect(levels[2]!).toBeLessThan(levels[0]!);
    // The line ends at the right edge: the current price holds until now.
    expect(d.endsWith('H312')).toBe(true);
  });

  it('leaves a gap for a price in another currency or on request, and draws nothing without one', () => {
    const svg = priceChart(
      [
        point('2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z', 10),
        point('2026-02-01T00:00:00Z', '2026-03-01T00:00:00Z', 9, 'EUR'),
        point('2026-03-01T00:00:00Z', null, 11),
      ],
      'USD',
      '2026-04-01T00:00:00Z',
    )!.value;
    expect(/<path d="([^"]+)"/.exec(svg)![1]!.match(/M/g)).toHaveLength(2);
    expect(priceChart([point('2026-01-01T00:00:00Z', null, null)], 'USD', '2026-02-01T00:00:00Z')).toBeNull();
  });

  it('escapes what it writes', () => {
    const svg = priceChart([point('2026-01-01T00:00:00Z', null, 5)], 'USD', '2026-02-01T00:00:00Z', 'a"b')!.value;
    expect(svg).toContain('aria-labelledby="a&quot;b-title a&quot;b-desc"');
    expect(svg).toContain('unchanged.</desc>');
  });
});
