// WHMCS's GetProducts answer mapped to a catalogue: the documented example, a realistic catalogue (two currencies,
// cycles not offered, free, one-time, HTML, unicode, specs and locations in descriptions and configurable options),
// the category map, and answers that are not what they should be.
import { describe, expect, it } from 'vitest';
import { BillingAnswerError } from '../../src/connectors/answer.js';
import {
  catalogueFrom,
  type CatalogueOptions,
  CurrencyChoiceError,
  EmptyCatalogueError,
  UnmappedProductsError,
} from '../../src/connectors/catalogue.js';
import { parseCategoryMap } from '../../src/connectors/category-map.js';
import { whmcsProducts, whmcsRefusal } from '../../src/connectors/whmcs.js';
import { canonicalPeriod } from '../../src/catalog/billing-periods.js';
import { validateCatalogue } from '../../src/catalog/validate.js';
import { WHMCS_AUTHENTICATION_FAILED, WHMCS_CATALOGUE, WHMCS_GETPRODUCTS_EXAMPLE, whmcsInvalidIp } from './fixtures.js';

const MAP = parseCategoryMap(
  JSON.stringify({ groups: { '1': 'web_shared', '2': 'vps_cloud', '3': 'game_minecraft' }, products: { '13': null } }),
  'categories.json',
);

function options(patch: Partial<CatalogueOptions> = {}): CatalogueOptions {
  return { map: MAP, mapFile: 'categories.json', currency: 'USD', system: 'WHMCS', ...patch };
}

const copy = <T>(value: T): T => structuredClone(value);

describe('WHMCS GetProducts to a catalogue', () => {
  it("maps the documentation's example: the one offered cycle, its setup fee, the module's category", () => {
    const products = whmcsProducts(WHMCS_GETPRODUCTS_EXAMPLE);
    const map = parseCategoryMap('{"modules": {"cPanel": "web_shared"}}', 'categories.json');
    const result = catalogueFrom(products, options({ map, currency: null }));
    expect(result).toEqual({
      products: [
        {
          external_id: '1',
          name: 'Best Hosting Plan',
          category: 'web_shared',
          price: 25.99,
          pricing_tiers: [{ period: 'Monthly', price: 25.99 }],
          setup_fee: 0,
          currency: 'USD',
          description: 'This is our best hosting plan, with all the bells and whistles.',
        },
      ],
      leftOut: [],
      // Its custom field asks the customer for a contact and its yes/no option is an add-on: neither states a spec.
      withoutSpecs: [{ id: '1', name: 'Best Hosting Plan' }],
      withoutLocation: [{ id: '1', name: 'Best Hosting Plan' }],
      warnings: [],
      currency: 'USD',
    });
  });

  it('maps a whole catalogue in the chosen currency: cycles under WHMCS names, monthly price, setup fee, text, specs, locations', () => {
    const result = catalogueFrom(whmcsProducts(WHMCS_CATALOGUE), options());
    expect(result.currency).toBe('USD');
    expect(result.products).toEqual([
      {
        external_id: '1',
        name: 'Starter',
        category: 'web_shared',
        price: 4.99,
        pricing_tiers: [
          { period: 'Monthly', price: 4.99 },
          { period: 'Annually', price: 49.9 },
          { period: 'Biennially', price: 89 },
        ],
        setup_fee: 5,
        currency: 'USD',
        description: '10 GB NVMe & free SSL\n- 1 website\n- Daily backups',
        // "10 GB NVMe & free SSL" is more than a figure and what it counts, so it is not read.
        specs: { website: '1' },
      },
      {
        // Sold only yearly and three-yearly: the monthly price is the yearly one in twelve, with its setup fee.
        external_id: '2',
        name: 'Business & Co',
        category: 'web_shared',
        price: 10,
        pricing_tiers: [
          { period: 'Annually', price: 120 },
          { period: 'Triennially', price: 300 },
        ],
        setup_fee: 10,
        currency: 'USD',
        description: 'Unlimited websites\nUnlimited e-mail',
        specs: { websites: 'Unlimited', 'e-mail': 'Unlimited' },
      },
      {
        external_id: '7',
        name: 'Serveur Dédié Ü — 東京',
        category: 'vps_cloud',
        price: 89,
        pricing_tiers: [
          { period: 'Monthly', price: 89 },
          { period: 'Quarterly', price: 255 },
          { period: 'Semi-Annually', price: 495 },
        ],
        setup_fee: 49,
        currency: 'USD',
        description: 'CPU: 8 cores\nRAM: 32\u202fGB',
        specs: { CPU: '8 cores', RAM: '32 GB' },
      },
      // Free: price 0, no cycles.
      {
        external_id: '9',
        name: 'Trial VPS',
        category: 'vps_cloud',
        price: 0,
        currency: 'USD',
        description: 'Seven days to try',
      },
      {
        // The description's lines; its custom field "Data center" asks the customer and states nothing.
        external_id: '10',
        name: 'Cloud VPS M',
        category: 'vps_cloud',
        price: 12,
        pricing_tiers: [
          { period: 'Monthly', price: 12 },
          { period: 'Annually', price: 120 },
        ],
        setup_fee: 0,
        currency: 'USD',
        description: '4 GB RAM\n2 vCPU\n80 GB SSD\nLocation: Frankfurt, Germany',
        specs: { RAM: '4 GB', vCPU: '2', SSD: '80 GB' },
        datacenter_locations: ['Frankfurt, Germany'],
      },
      {
        // The location to choose lists every choice, as WHMCS shows it; the disk offered with one choice is a spec;
        // the memory to choose is not, the description's "8 GB RAM" is; backups (yes/no) are an add-on.
        external_id: '11',
        name: 'Cloud VPS L',
        category: 'vps_cloud',
        price: 24,
        pricing_tiers: [{ period: 'Monthly', price: 24 }],
        setup_fee: 0,
        currency: 'USD',
        description: '8 GB RAM\n4 vCPU cores',
        specs: { Disk: '160 GB NVMe', RAM: '8 GB', 'vCPU cores': '4' },
        datacenter_locations: ['Frankfurt, Germany', 'New York, United States', 'Singapore'],
      },
      // One-time: no monthly price, the one-time cycle and its setup fee.
      {
        external_id: '12',
        name: 'Minecraft 4 GB',
        category: 'game_minecraft',
        pricing_tiers: [{ period: 'One Time', price: 15 }],
        setup_fee: 2.5,
        currency: 'USD',
      },
    ]);
    expect(result.leftOut).toEqual([
      { id: '13', name: 'Legacy Rust server', reason: 'categories.json leaves it out ("products" → "13" is null)' },
    ]);
    expect(result.withoutSpecs).toEqual([
      { id: '9', name: 'Trial VPS' },
      { id: '12', name: 'Minecraft 4 GB' },
    ]);
    expect(result.withoutLocation.map((p) => p.id)).toEqual(['1', '2', '7', '9', '12']);
    expect(result.warnings).toEqual([]);
  });

  it('reads the other currency when asked, and leaves out a product that has no cycle in it', () => {
    const map = parseCategoryMap(
      '{"groups": {"1": "web_shared", "2": "vps_cloud", "3": "game_minecraft"}}',
      'categories.json',
    );
    const result = catalogueFrom(whmcsProducts(WHMCS_CATALOGUE), options({ map, currency: 'eur' }));
    expect(result.currency).toBe('EUR');
    const byId = Object.fromEntries(result.products.map((p) => [p.external_id, p]));
    expect(byId['1']).toMatchObject({
      price: 4.59,
      setup_fee: 4,
      currency: 'EUR',
      pricing_tiers: [
        { period: 'Monthly', price: 4.59 },
        { period: 'Annually', price: 45.9 },
      ],
    });
    expect(byId['2']).toMatchObject({ price: 9.17, setup_fee: 9, pricing_tiers: [{ period: 'Annually', price: 110 }] });
    expect(byId['12']).toMatchObject({ pricing_tiers: [{ period: 'One Time', price: 14 }], setup_fee: 2 });
    expect(result.leftOut).toEqual([
      { id: '13', name: 'Legacy Rust server', reason: 'no billing cycle is offered in EUR' },
    ]);
  });

  it("names every cycle the way hostdir recognises, and the catalogue passes the sync endpoint's validation", () => {
    for (const period of [
      'Monthly',
      'Quarterly',
      'Semi-Annually',
      'Annually',
      'Biennially',
      'Triennially',
      'One Time',
    ]) {
      expect(canonicalPeriod(period), period).not.toBeNull();
    }
    const { products } = catalogueFrom(whmcsProducts(WHMCS_CATALOGUE), options());
    const validated = validateCatalogue(
      { products },
      { categories: new Set(['web_shared', 'vps_cloud', 'game_minecraft']), defaultCurrency: 'EUR', maxProducts: 100 },
    );
    expect(validated.ok, JSON.stringify(validated)).toBe(true);
  });

  it('asks for a currency when prices come in several, and refuses one that is not there', () => {
    expect(() => catalogueFrom(whmcsProducts(WHMCS_CATALOGUE), options({ currency: null }))).toThrow(
      new CurrencyChoiceError(
        'WHMCS prices its products in EUR, USD; choose the currency to list with --currency (e.g. --currency EUR)',
      ),
    );
    expect(() => catalogueFrom(whmcsProducts(WHMCS_CATALOGUE), options({ currency: 'GBP' }))).toThrow(
      'WHMCS has no prices in GBP; its prices are in EUR, USD',
    );
    expect(() => catalogueFrom(whmcsProducts(WHMCS_CATALOGUE), options({ currency: 'dollars' }))).toThrow(
      'is not an ISO 4217 code',
    );
  });

  it('names every group the map leaves without a category, with its module and products, and a map to start from', () => {
    const map = parseCategoryMap('{"groups": {"1": "web_shared"}}', 'categories.json');
    let error: unknown;
    try {
      catalogueFrom(whmcsProducts(WHMCS_CATALOGUE), options({ map }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnmappedProductsError);
    expect((error as Error).message).toBe(
      [
        'categories.json gives no category to 6 products:',
        '  group 2 (module proxmox): 7 "Serveur Dédié Ü — 東京", 9 "Trial VPS", 10 "Cloud VPS M", and 1 more',
        '  group 3 (module pterodactyl): 12 "Minecraft 4 GB", 13 "Legacy Rust server"',
        'Add them to categories.json, each with a category slug (hostdir categories list shows them) or null to leave them out, e.g.:',
        '{',
        '  "groups": {',
        '    "2": "<category>",',
        '    "3": "<category>"',
        '  }',
        '}',
      ].join('\n'),
    );
  });

  it("takes a product's own entry first, then its group, then its module (in any case)", () => {
    const map = parseCategoryMap(
      JSON.stringify({
        products: { '7': 'dedicated' },
        groups: { '1': 'web_shared', '3': null },
        modules: { PROXMOX: 'vps_cloud' },
      }),
      'categories.json',
    );
    const result = catalogueFrom(whmcsProducts(WHMCS_CATALOGUE), options({ map }));
    expect(result.products.map((p) => [p.external_id, p.category])).toEqual([
      ['1', 'web_shared'],
      ['2', 'web_shared'],
      ['7', 'dedicated'],
      ['9', 'vps_cloud'],
      ['10', 'vps_cloud'],
      ['11', 'vps_cloud'],
    ]);
    expect(result.leftOut.map((l) => l.reason)).toEqual([
      'categories.json leaves it out ("groups" → "3" is null)',
      'categories.json leaves it out ("groups" → "3" is null)',
    ]);
  });

  it('leaves out products an answer marks hidden or retired', () => {
    // GetProducts documents neither flag; an installation whose answer carries them is honoured.
    const answer = copy(WHMCS_CATALOGUE);
    Object.assign(answer.products.product[0]!, { hidden: 1 });
    Object.assign(answer.products.product[1]!, { retired: '1' });
    Object.assign(answer.products.product[2]!, { hidden: 0, retired: '0' });
    const result = catalogueFrom(whmcsProducts(answer), options());
    expect(result.products.map((p) => p.external_id)).toEqual(['7', '9', '10', '11', '12']);
    expect(result.leftOut).toEqual([
      { id: '1', name: 'Starter', reason: 'hidden in WHMCS' },
      { id: '2', name: 'Business & Co', reason: 'retired in WHMCS' },
      { id: '13', name: 'Legacy Rust server', reason: 'categories.json leaves it out ("products" → "13" is null)' },
    ]);
  });

  it('reads a product given as an object rather than a list of one, and string ids', () => {
    const answer = copy(WHMCS_GETPRODUCTS_EXAMPLE) as Record<string, any>;
    answer.products.product = { ...answer.products.product[0], pid: '1', gid: '1' };
    expect(whmcsProducts(answer).map((p) => [p.id, p.groups])).toEqual([['1', [{ id: '1', name: null }]]]);
  });

  it('refuses an answer that holds fewer products than it says, rather than deactivating the rest', () => {
    const answer = copy(WHMCS_CATALOGUE);
    answer.totalresults = 9;
    expect(() => whmcsProducts(answer)).toThrow(
      new BillingAnswerError(
        'WHMCS reported 9 products (totalresults) but its answer holds 8; syncing part of the catalogue would deactivate the rest, so nothing is synced',
      ),
    );
  });

  it('refuses answers of another shape, and reads an error answer as a refusal', () => {
    expect(() => whmcsProducts([])).toThrow('not an object');
    expect(() => whmcsProducts({ result: 'error', message: 'x' })).toThrow('"result": "error", not "success"');
    expect(() => whmcsProducts({ result: 'success', products: { product: [{ name: 'no id' }] } })).toThrow(
      'products.product[0] without a pid',
    );
    expect(() => whmcsProducts({ result: 'success', products: 42 })).toThrow('neither an object nor a list');
    expect(whmcsProducts({ result: 'success', totalresults: 0, products: '' })).toEqual([]);
    expect(whmcsRefusal(WHMCS_AUTHENTICATION_FAILED)).toBe('Authentication Failed');
    expect(whmcsRefusal(whmcsInvalidIp('203.0.113.9'))).toBe('Invalid IP 203.0.113.9');
    expect(whmcsRefusal(WHMCS_GETPRODUCTS_EXAMPLE)).toBeNull();
  });

  it('keeps a cycle it cannot read out, and says so', () => {
    const answer = copy(WHMCS_GETPRODUCTS_EXAMPLE) as Record<string, any>;
    answer.products.product[0].pricing.USD.annually = 'n/a';
    const map = parseCategoryMap('{"groups": {"1": "web_shared"}}', 'categories.json');
    const result = catalogueFrom(whmcsProducts(answer), options({ map }));
    expect(result.products[0]!.pricing_tiers).toEqual([{ period: 'Monthly', price: 25.99 }]);
    expect(result.warnings).toEqual(['1: the Annually price in USD ("n/a") is not an amount; that cycle is left out']);
  });

  it('takes a spec from a configurable option only when it offers one choice, and notes a description that disagrees', () => {
    const answer = copy(WHMCS_GETPRODUCTS_EXAMPLE) as Record<string, any>;
    const product = answer.products.product[0];
    product.description =
      '<p>RAM: 8 GB</p><p>2 vCPU | 40 GB NVMe | 1 Gbit/s port</p><p>30 day money-back guarantee</p>';
    // One option may come unwrapped rather than as a list of one, its type as a number, a choice without rawName.
    product.configoptions = {
      configoption: { id: 9, name: 'Memory', type: 1, options: { option: { id: 1, name: '4 GB' } } },
    };
    const map = parseCategoryMap('{"groups": {"1": "vps_cloud"}}', 'categories.json');
    const result = catalogueFrom(whmcsProducts(answer), options({ map }));
    expect(result.products[0]!.specs).toEqual({ Memory: '4 GB', vCPU: '2', NVMe: '40 GB', port: '1 Gbit/s' });
    expect(result.warnings).toEqual([
      '1: the description\'s "RAM: 8 GB" disagrees with the configurable option "Memory" ("4 GB"); the first is kept',
    ]);

    product.configoptions.configoption.options.option = [
      { id: 1, name: '4 GB', rawName: '4096|4 GB' },
      { id: 2, name: '8 GB', rawName: '8192|8 GB' },
    ];
    const choice = catalogueFrom(whmcsProducts(answer), options({ map }));
    expect(choice.products[0]!.specs).toEqual({ RAM: '8 GB', vCPU: '2', NVMe: '40 GB', port: '1 Gbit/s' });
    expect(choice.warnings).toEqual([]);
  });

  it('lists every choice of a location option once, as WHMCS shows it, and reads no quantity, yes/no or custom field', () => {
    const answer = copy(WHMCS_GETPRODUCTS_EXAMPLE) as Record<string, any>;
    const product = answer.products.product[0];
    product.description = 'Location: Frankfurt, Germany';
    product.customfields.customfield.push({
      id: 3,
      name: 'Data center',
      description: 'New York or London?',
      required: 'on',
    });
    product.configoptions.configoption.push(
      {
        id: 5,
        name: 'Server Location',
        type: '2',
        options: {
          option: [
            { id: 11, name: 'Amsterdam', rawName: 'ams|Amsterdam', recurring: 0, required: 'ams' },
            // Named without a bar, WHMCS adds the setup fee to the name.
            {
              id: 12,
              name: 'Frankfurt + $5.00 USD Setup Fee',
              rawName: 'Frankfurt',
              recurring: 0,
              required: 'Frankfurt',
            },
          ],
        },
      },
      {
        id: 6,
        name: 'Region',
        type: '4',
        minqty: 0,
        maxqty: 3,
        options: { option: [{ id: 13, name: 'Extra region', rawName: null }] },
      },
      { id: 7, name: 'Data Center', type: '3', options: { option: [{ id: 14, name: 'London', rawName: null }] } },
    );
    const map = parseCategoryMap('{"groups": {"1": "vps_cloud"}}', 'categories.json');
    const result = catalogueFrom(whmcsProducts(answer), options({ map }));
    // The description's "Frankfurt, Germany" is the option's Frankfurt: one place, listed once.
    expect(result.products[0]!.datacenter_locations).toEqual(['Amsterdam', 'Frankfurt']);
    expect(result.products[0]!.specs).toBeUndefined();
    expect(result.withoutSpecs).toEqual([{ id: '1', name: 'Best Hosting Plan' }]);
    expect(result.withoutLocation).toEqual([]);
  });

  it('refuses to build an empty catalogue, which would deactivate the whole listing', () => {
    const map = parseCategoryMap('{"groups": {"1": null}}', 'categories.json');
    expect(() => catalogueFrom(whmcsProducts(WHMCS_GETPRODUCTS_EXAMPLE), options({ map }))).toThrow(
      EmptyCatalogueError,
    );
  });

  it("cuts a name and a description past the contract's lengths, on a character boundary", () => {
    const answer = copy(WHMCS_GETPRODUCTS_EXAMPLE) as Record<string, any>;
    answer.products.product[0].name = '🚀'.repeat(250);
    answer.products.product[0].description = 'é'.repeat(25_000);
    const map = parseCategoryMap('{"groups": {"1": "web_shared"}}', 'categories.json');
    const result = catalogueFrom(whmcsProducts(answer), options({ map }));
    const product = result.products[0]!;
    expect([...product.name].length).toBe(200);
    expect(product.name.endsWith('🚀…')).toBe(true);
    expect([...product.description!].length).toBe(20_000);
    expect(result.warnings).toEqual([
      '1: the name is cut to 200 characters',
      '1: the description is cut to 20000 characters',
    ]);
  });

  it('maps stock control and quantity to the stock: units left, 0 sold out, and none when stock control is off', () => {
    const answer = copy(WHMCS_GETPRODUCTS_EXAMPLE) as Record<string, any>;
    const [example] = answer.products.product;
    answer.products.product = [
      { ...example, pid: 1, stockcontrol: true, qty: 3 },
      { ...example, pid: 2, stockcontrol: '1', qty: '0' },
      { ...example, pid: 3, stockcontrol: 'on', qty: '-2' },
      { ...example, pid: 4, stockcontrol: false, qty: 0 },
      { ...example, pid: 5, stockcontrol: 1, quantity_available: 7 },
      { ...example, pid: 6 },
    ];
    answer.totalresults = 6;
    const map = parseCategoryMap('{"groups": {"1": "web_shared"}}', 'categories.json');
    const result = catalogueFrom(whmcsProducts(answer), options({ map }));
    expect(result.products.map((product) => [product.external_id, product.stock])).toEqual([
      ['1', 3],
      ['2', 0],
      // Oversold: none left.
      ['3', 0],
      ['4', undefined],
      ['5', 7],
      // The documented example has quantity_available 0 and no stock control: not tracked, not sold out.
      ['6', undefined],
    ]);
  });
});
