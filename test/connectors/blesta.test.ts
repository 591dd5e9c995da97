// Blesta's packages mapped to a catalogue: term and period as Blesta names them, translated names and
// descriptions in both documented forms, groups as objects or ids, statuses and hidden packages, package options
// (a location to choose, a spec with one value), error answers.
import { describe, expect, it } from 'vitest';
import {
  blestaHasOptions,
  blestaPackage,
  blestaPage,
  blestaRefusal,
  blestaResponse,
} from '../../src/connectors/blesta.js';
import { type BillingProduct, catalogueFrom } from '../../src/connectors/catalogue.js';
import { parseCategoryMap } from '../../src/connectors/category-map.js';
import { canonicalPeriod } from '../../src/catalog/billing-periods.js';
import { validateCatalogue } from '../../src/catalog/validate.js';
import { BLESTA_ERRORS, BLESTA_PACKAGE_OPTIONS, BLESTA_PACKAGES } from './fixtures.js';

const MAP = parseCategoryMap(
  JSON.stringify({ groups: { '4': 'vps_cloud', '6': 'web_shared', Security: 'ssl', '8': 'game_other' } }),
  'categories.json',
);

/**
 * Each package as getList lists it (no pricing, no groups), as packages/get answers for it and, when it has option
 * groups, as package_options/getByPackageId answers for it.
 */
function packages(list: readonly Record<string, unknown>[] = BLESTA_PACKAGES): BillingProduct[] {
  return list.map((pkg) => {
    const { pricing: _pricing, groups: _groups, option_groups: _optionGroups, ...listed } = pkg;
    const detail = { response: pkg };
    const options = blestaHasOptions(detail) ? { response: BLESTA_PACKAGE_OPTIONS[String(pkg.id)] ?? [] } : null;
    return blestaPackage(String(pkg.id), listed, detail, options);
  });
}

describe('Blesta packages to a catalogue', () => {
  it("maps every active package in the chosen currency, with Blesta's own term and period", () => {
    const result = catalogueFrom(packages(), {
      map: MAP,
      mapFile: 'categories.json',
      currency: 'EUR',
      system: 'Blesta',
    });
    expect(result.products).toEqual([
      {
        external_id: '3',
        name: 'Cloud VPS S',
        category: 'vps_cloud',
        price: 6.5,
        pricing_tiers: [
          { period: '1 month', price: 6.5 },
          { period: '12 month', price: 70 },
        ],
        setup_fee: 0,
        currency: 'EUR',
        description: '2 vCPU\n4 GB RAM',
        // The storage option's one value, then the description's lines; the location option's active values.
        specs: { Storage: '80 GB NVMe', vCPU: '2', RAM: '4 GB' },
        datacenter_locations: ['Frankfurt, Germany', 'Helsinki, Finland'],
      },
      {
        // Translated name and text description only (Blesta 4.5+); sold quarterly and yearly: a quarter in three.
        external_id: '5',
        name: 'Große Webseite ✓',
        category: 'web_shared',
        price: 4,
        pricing_tiers: [
          { period: '3 month', price: 12 },
          { period: '1 year', price: 40 },
        ],
        setup_fee: 3,
        currency: 'EUR',
        description: 'Für Vereine',
      },
      {
        // Mapped by its group's name; one-time only: no monthly price.
        external_id: '8',
        name: 'SSL certificate',
        category: 'ssl',
        pricing_tiers: [{ period: 'onetime', price: 9 }],
        setup_fee: 0,
        currency: 'EUR',
        description: 'Domain validated',
      },
      {
        external_id: '9',
        name: 'Game server',
        category: 'game_other',
        price: 8,
        pricing_tiers: [
          { period: '1 week', price: 2.5 },
          { period: '1 month', price: 8 },
        ],
        setup_fee: 1,
        currency: 'EUR',
      },
    ]);
    expect(result.leftOut).toEqual([
      { id: '10', name: 'Old plan', reason: 'inactive in Blesta' },
      { id: '11', name: 'Partner plan', reason: 'restricted in Blesta (sold only to chosen clients)' },
      { id: '12', name: 'Internal plan', reason: 'hidden in Blesta' },
    ]);
    // "12 month" and "1 year" are both a year: the directory refuses two tiers of one period, so one is kept.
    expect(result.warnings).toEqual(['3: "1 year" names the same period as "12 month"; only "12 month" is listed']);
    expect(result.withoutSpecs.map((p) => p.id)).toEqual(['5', '8', '9']);
    expect(result.withoutLocation.map((p) => p.id)).toEqual(['5', '8', '9']);
  });

  it("reads the select and radio options of a package's option groups: active values, no hidden option", () => {
    const [cloud, website] = packages();
    expect(cloud!.options).toEqual([
      { name: 'Location', choices: ['Frankfurt, Germany', 'Helsinki, Finland'] },
      { name: 'Operating system', choices: ['Debian 12', 'AlmaLinux 9'] },
      { name: 'Storage', choices: ['80 GB NVMe'] },
    ]);
    expect(website!.options).toEqual([]);
    // Options are asked for only when packages/get names option groups.
    expect(blestaHasOptions({ response: BLESTA_PACKAGES[0] })).toBe(true);
    expect(blestaHasOptions({ response: BLESTA_PACKAGES[1] })).toBe(false);
    expect(blestaHasOptions({ response: { ...BLESTA_PACKAGES[0], option_groups: [] } })).toBe(false);
    // An option without a label is named by its field name; a value without a name by its value.
    const unlabelled = blestaPackage(
      '20',
      { id: 20 },
      { response: { id: 20, name: 'Plan' } },
      {
        response: [{ id: '1', name: 'region', type: 'radio', hidden: '0', values: [{ name: '', value: 'Warsaw' }] }],
      },
    );
    expect(unlabelled.options).toEqual([{ name: 'region', choices: ['Warsaw'] }]);
    expect(() => blestaPackage('20', { id: 20 }, { response: { id: 20 } }, { options: [] })).toThrow(
      'Blesta answered package_options/getByPackageId for package 20 without a "response"',
    );
  });

  it("asks which currency to list, and the catalogue passes the sync endpoint's validation", () => {
    expect(() => catalogueFrom(packages(), { map: MAP, mapFile: 'm.json', currency: null, system: 'Blesta' })).toThrow(
      'Blesta prices its products in EUR, USD; choose the currency to list with --currency (e.g. --currency EUR)',
    );
    const usd = catalogueFrom(packages(), { map: MAP, mapFile: 'm.json', currency: 'USD', system: 'Blesta' });
    expect(usd.products.map((p) => p.external_id)).toEqual(['3']);
    expect(usd.leftOut.map((l) => l.reason)).toContain('no billing cycle is offered in USD');
    const { products } = catalogueFrom(packages(), { map: MAP, mapFile: 'm.json', currency: 'EUR', system: 'Blesta' });
    const validated = validateCatalogue(
      { products },
      {
        categories: new Set(['vps_cloud', 'web_shared', 'ssl', 'game_other']),
        defaultCurrency: 'USD',
        maxProducts: 100,
      },
    );
    expect(validated.ok, JSON.stringify(validated)).toBe(true);
    for (const period of ['1 month', '12 month', '3 month', '1 year', '1 week', 'onetime', '2 year', '7 day']) {
      expect(canonicalPeriod(period), period).not.toBeNull();
    }
  });

  it('reads a getList page as a list or keyed by id, and an empty page as the end', () => {
    expect(blestaPage({ response: [{ id: 3 }, { id: '5' }] }, 1).map((p) => p.id)).toEqual(['3', '5']);
    expect(blestaPage({ response: { a: { id: 3 } } }, 1).map((p) => p.id)).toEqual(['3']);
    expect(blestaPage({ response: [] }, 4)).toEqual([]);
    expect(() => blestaPage({ response: [{ name: 'x' }] }, 2)).toThrow(
      'packages/getList page 2 with an item (0) without an id',
    );
    expect(() => blestaPage({ packages: [] }, 1)).toThrow('without a "response"');
  });

  it('refuses a package that is gone by the time its details are read', () => {
    expect(() => blestaPackage('3', { id: 3 }, { response: false })).toThrow('Blesta has no package 3 any more');
  });

  it('reads a cycle it cannot use as a note, not as a tier', () => {
    const [product] = packages([
      {
        id: 1,
        name: 'Odd',
        status: 'active',
        groups: ['6'],
        pricing: [
          { term: '1', period: 'fortnight', price: '5.0000', currency: 'EUR' },
          { term: '0', period: 'month', price: '5.0000', currency: 'EUR' },
          { term: '1', period: 'month', price: '-1.0000', currency: 'EUR' },
          { term: '1', period: 'month', price: '5.0000', currency: 'EUR' },
        ],
      },
    ]);
    expect(product!.pricing.get('EUR')).toEqual([{ period: '1 month', price: 5, setupFee: null }]);
    expect(product!.notes).toEqual([
      'the pricing 1 fortnight in EUR (price "5.0000") cannot be read and is left out',
      'the pricing 0 month in EUR has no whole term of 1 or more and is left out',
      'the pricing 1 month in EUR (price "-1.0000") cannot be read and is left out',
    ]);
  });

  it('reads the documented error answers as refusals, and a success as none', () => {
    expect(blestaRefusal(BLESTA_ERRORS.unauthorized.body)).toBe(
      'The authorization details given appear to be invalid.',
    );
    expect(blestaRefusal(BLESTA_ERRORS.maintenance.body)).toBe(
      'The requested resource is currently unavailable due to maintenance.',
    );
    expect(
      blestaRefusal({
        model: {
          message: 'The request cannot be fulfilled due to bad syntax.',
          errors: { page: { format: 'Bad page.' } },
        },
      }),
    ).toBe('The request cannot be fulfilled due to bad syntax. (page: Bad page.)');
    expect(blestaRefusal({ response: [] })).toBeNull();
    expect(blestaResponse({ response: false }, 'x')).toBe(false);
  });

  it("maps a package's quantity to the stock: null is unlimited (not tracked), 0 sold out", () => {
    const [cloud, website] = BLESTA_PACKAGES;
    const [limited, soldOut, unlimited] = packages([
      { ...cloud!, qty: '12' },
      { ...website!, qty: 0 },
      { ...cloud!, id: 99, qty: null },
    ]);
    expect([limited!.stock, soldOut!.stock, unlimited!.stock]).toEqual([12, 0, null]);
    const result = catalogueFrom([limited!, soldOut!], {
      map: MAP,
      mapFile: 'm.json',
      currency: 'EUR',
      system: 'Blesta',
    });
    expect(result.products.map((product) => [product.external_id, product.stock])).toEqual([
      [limited!.id, 12],
      [soldOut!.id, 0],
    ]);
  });
});
