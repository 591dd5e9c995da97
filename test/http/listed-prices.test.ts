// A listed product priced for a display currency (http/listed-prices.ts): every field of the listing carried as it
// is, with its true cost, the cost converted and the price per resource beside them.
import { describe, expect, it } from 'vitest';
import { pricedProduct, priceView } from '../../src/http/listed-prices.js';
import type { ListedProduct } from '../../src/store/directory/listed-product.js';

const rates = new Map([
  ['USD', { rate: 1.25, date: '2026-11-20' }],
  ['GBP', { rate: 0.8, date: '2026-11-18' }],
]);

const listed: ListedProduct = {
  id: 'prd_1',
  name: 'VPS 8',
  category: 'vps_cloud',
  price: 12.5,
  currency: 'USD',
  description: 'Eight gigabytes',
  specs: { RAM: '8 GB', CPU: '4 vCPU', Disk: '160 GB SSD' },
  pricing_tiers: [
    { period: 'monthly', price: 12.5, canonical_period: 'monthly' },
    { period: 'annually', price: 120, canonical_period: 'annually' },
  ],
  setup_fee: 5,
  contract_duration: null,
  features: ['ipv6'],
  datacenter_locations: ['Frankfurt'],
  stock: 3,
  comparable_specs: { ram_gb: 8, cpu_cores: 4, disk_gb: 160 },
  places: [{ location: 'Frankfurt', city: 'Frankfurt', country: 'DE' }],
  monthly_price: 12.5,
  monthly_equivalent: 12.5,
  base_monthly_price: 10,
  order_url: 'https://example.com/order/1',
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: '2026-11-20T10:00:00.000Z',
  host: { slug: 'example', name: 'Example Hosting' },
  confirmed_at: '2026-11-27T10:00:00.000Z',
  stale: false,
  price_drop: { since: '2026-11-01', previous_monthly_price: 14 },
  available: true,
};

describe('a listed product priced', () => {
  it('carries every field of the listing, unchanged, beside its cost', () => {
    const priced = pricedProduct(listed, priceView({}, 'EUR', rates, false));
    expect(Object.keys(priced).sort()).toEqual([...Object.keys(listed), 'converted', 'cost', 'price_per'].sort());
    for (const [key, value] of Object.entries(listed)) expect(priced[key as keyof ListedProduct]).toEqual(value);
    // the listing itself is left as it was
    expect(Object.keys(listed)).not.toContain('cost');
  });

  it('converts the cost into the display currency at the older of the two rates', () => {
    const priced = pricedProduct(listed, priceView({ display: 'GBP' }, 'EUR', rates, false));
    expect(priced.cost).toMatchObject({ monthly: 12.5, yearly: 120, setup_fee: 5 });
    expect(priced.converted).toEqual({
      currency: 'GBP',
      monthly: 8,
      yearly: 76.8,
      setup_fee: 3.2,
      first_term_cost: 80,
      rate_date: '2026-11-18',
    });
    expect(priced.price_per).toEqual({ ram_gb: 1, cpu_core: 2, disk_gb: 0.05, traffic_tb: null });
  });

  it('leaves the converted cost and the price per resource unknown without a rate', () => {
    const priced = pricedProduct(
      { ...listed, currency: 'CHF', base_monthly_price: null },
      priceView({}, 'EUR', rates, false),
    );
    expect(priced.converted).toBeNull();
    expect(priced.price_per).toEqual({ ram_gb: null, cpu_core: null, disk_gb: null, traffic_tb: null });
  });
});
