// HostBill's order pages and products mapped to a catalogue: the documented examples, cycles by letter under
// HostBill's names, the Free pay type, visibility, the currency HostBill's answer does not name, and the specs and
// location a description states.
import { describe, expect, it } from 'vitest';
import { catalogueFrom } from '../../src/connectors/catalogue.js';
import { parseCategoryMap } from '../../src/connectors/category-map.js';
import { hostbillOrderPages, hostbillProducts, hostbillRefusal } from '../../src/connectors/hostbill.js';
import {
  HOSTBILL_GETORDERPAGES_EXAMPLE,
  HOSTBILL_GETPRODUCTS_EXAMPLE,
  HOSTBILL_SHARED_PRODUCTS,
  hostbillError,
} from './fixtures.js';

const MAP = parseCategoryMap(
  JSON.stringify({ groups: { '43': 'vps_cloud', 'Shared Hosting': 'web_shared' } }),
  'categories.json',
);

function products() {
  const [onapp, shared] = hostbillOrderPages(HOSTBILL_GETORDERPAGES_EXAMPLE, 'getOrderPages');
  return [
    ...hostbillProducts(HOSTBILL_GETPRODUCTS_EXAMPLE, onapp!),
    ...hostbillProducts(HOSTBILL_SHARED_PRODUCTS, shared!),
  ];
}

describe('HostBill products to a catalogue', () => {
  it('reads the documented order pages', () => {
    expect(hostbillOrderPages(HOSTBILL_GETORDERPAGES_EXAMPLE, 'getOrderPages')).toEqual([
      { id: '43', name: 'OnApp tests', visible: true, holdsPages: false },
      { id: '6', name: 'Shared Hosting', visible: true, holdsPages: false },
    ]);
  });

  it('maps the documented products and a shared-hosting page: offered cycles, Free, archived left out', () => {
    const result = catalogueFrom(products(), {
      map: MAP,
      mapFile: 'categories.json',
      currency: null,
      system: 'HostBill',
    });
    expect(result.currency).toBeNull();
    // Products keyed by id come in the order of their ids (as JSON.parse orders integer keys).
    expect(result.products).toEqual([
      {
        external_id: '235',
        name: 'VPS-512-w-sliders',
        category: 'vps_cloud',
        price: 20,
        pricing_tiers: [{ period: 'Monthly', price: 20 }],
        setup_fee: 0,
      },
      // The "Free" pay type is free whatever its cycles say.
      { external_id: '236', name: 'VPS-1024-w-sliders', category: 'vps_cloud', price: 0 },
      {
        external_id: '301',
        name: 'Hosting Mini',
        category: 'web_shared',
        price: 3,
        pricing_tiers: [
          { period: 'Monthly', price: 3 },
          { period: 'Annually', price: 30 },
        ],
        setup_fee: 1,
        description: "- 5 GB SSD storage\n- 1 website\n- Let's Encrypt\nData center: Amsterdam, Netherlands",
        specs: { 'SSD storage': '5 GB', website: '1' },
        datacenter_locations: ['Amsterdam, Netherlands'],
      },
    ]);
    expect(result.leftOut).toEqual([{ id: '302', name: 'Hosting Archive', reason: 'archived in HostBill' }]);
    // The documented examples' descriptions are empty: nothing stated.
    expect(result.withoutSpecs).toEqual([
      { id: '235', name: 'VPS-512-w-sliders' },
      { id: '236', name: 'VPS-1024-w-sliders' },
    ]);
    expect(result.withoutLocation).toEqual(result.withoutSpecs);
  });

  it('states the currency it is told HostBill prices in', () => {
    const result = catalogueFrom(products(), {
      map: MAP,
      mapFile: 'categories.json',
      currency: 'chf',
      system: 'HostBill',
    });
    expect(result.currency).toBe('CHF');
    expect(result.products.every((p) => p.currency === 'CHF')).toBe(true);
  });

  it('leaves out the products of a hidden order page, and reads one-time and hourly cycles', () => {
    const page = { id: '9', name: 'Beta', visible: false, holdsPages: false };
    expect(hostbillProducts(HOSTBILL_GETPRODUCTS_EXAMPLE, page).map((p) => p.offSale)).toEqual([
      'its order page "Beta" is not visible in HostBill',
      'its order page "Beta" is not visible in HostBill',
    ]);
    const answer = {
      success: true,
      products: [
        { id: '1', name: 'Setup service', paytype: 'Once', m: '49.00', m_setup: '0.00', visible: '1' },
        { id: '2', name: 'GPU hour', paytype: 'Regular', h: '0.90', m: '300.00', q: '0.00', visible: '1' },
      ],
    };
    const [once, hourly] = hostbillProducts(answer, { id: '10', name: 'Extras', visible: true, holdsPages: false });
    expect(once!.pricing.get('')).toEqual([{ period: 'Once', price: 49, setupFee: 0 }]);
    expect(hourly!.pricing.get('')).toEqual([
      { period: 'Hourly', price: 0.9, setupFee: null },
      { period: 'Monthly', price: 300, setupFee: null },
    ]);
  });

  it('reads sub-order pages and refusals', () => {
    expect(
      hostbillOrderPages(
        {
          success: true,
          subcategories: [{ id: '148', parent_id: '147', contains: 'products', name: 'Paris', visible: '1' }],
        },
        'getSubCategories',
      ),
    ).toEqual([{ id: '148', name: 'Paris', visible: true, holdsPages: false }]);
    expect(
      hostbillOrderPages(
        { success: true, categories: [{ id: '147', name: 'Cloud', contains: 'categories', visible: '0' }] },
        'getOrderPages',
      ),
    ).toEqual([{ id: '147', name: 'Cloud', visible: false, holdsPages: true }]);
    expect(hostbillRefusal(hostbillError('getOrderPages', 'Invalid API credentials'))).toBe('Invalid API credentials');
    expect(hostbillRefusal({ success: false })).toBe('(HostBill gave no message)');
    expect(hostbillRefusal(HOSTBILL_GETORDERPAGES_EXAMPLE)).toBeNull();
    expect(() => hostbillOrderPages(hostbillError('getOrderPages', 'x'), 'getOrderPages')).toThrow(
      'without "success": true',
    );
  });

  it('maps stock control ("stock") and the quantity ("qty") to the stock; with stock control off, none', () => {
    const [onapp] = hostbillOrderPages(HOSTBILL_GETORDERPAGES_EXAMPLE, 'getOrderPages');
    const answer = structuredClone(HOSTBILL_GETPRODUCTS_EXAMPLE) as {
      products: Record<string, Record<string, unknown>>;
    };
    answer.products['235'] = { ...answer.products['235'], stock: '1', qty: '4' };
    answer.products['236'] = { ...answer.products['236'], stock: '1', qty: '0', paytype: 'Regular' };
    const stocked = hostbillProducts(answer, onapp!);
    expect(stocked.map((product) => [product.id, product.stock])).toEqual([
      ['235', 4],
      ['236', 0],
    ]);
    const result = catalogueFrom(stocked, { map: MAP, mapFile: 'categories.json', currency: null, system: 'HostBill' });
    expect(result.products.map((product) => product.stock)).toEqual([4, 0]);
    // The documented example: stock control off ("stock": "0"), so "qty": "0" says nothing about what is left.
    expect(products().map((product) => product.stock)).toEqual([null, null, null, null]);
  });
});
