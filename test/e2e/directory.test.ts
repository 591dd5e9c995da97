// The public directory API over HTTP on both stores: every filter and sort against a model computed here from
// what was synced, paging walked to the end without gaps or repeats, and nothing hidden ever showing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalPeriod } from '../../src/catalog/billing-periods.js';
import { admin, call, onboard, product, sync, type Answer, type Onboarded } from '../support/api.js';
import { startServer, STORES, type TestServer } from '../support/server.js';

interface Synced {
  id: string;
  host: string;
  external_id: string;
  name: string;
  category: string;
  price: number | null;
  currency: string;
  /** null: neither a price nor a monthly tier ("price on request") */
  monthly: number | null;
  /** the monthly price in EUR, by the rates the test imports (USD_PER_EUR); what a price sort orders by */
  base: number | null;
  description: string;
  features: string[];
  locations: string[];
}

const CATEGORIES = ['vps_cloud', 'web_shared', 'dedicated', 'game_minecraft'];
const LOCATIONS = ['Frankfurt', 'Amsterdam', 'New York', 'Singapore'];
const FEATURES = ['NVMe', 'DDoS protection', 'Backups', 'IPv6'];
const WORDS = ['Turbo', 'Cloud', 'Bare', 'Metal', 'Block', 'Forge'];

// Billing periods as billing systems spell them: the directory finds the monthly one however it is written.
const MONTHLY = ['monthly', 'Monthly', '1 month'];
const YEARLY = ['annually', 'Annually', '1 year'];

/**
 * A catalogue with ties in every sort key (shared prices, shared names) so that the id tie-break is exercised, and
 * some products without a price ("price on request"), with and without a tier the directory does not recognise.
 */
function catalogue(prefix: string, count: number, currency: string, offset: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => {
    const n = i + offset;
    const unpriced = n % 8 === 7;
    const price = unpriced ? null : [3, 4.99, 4.99, 10, 12.5, 0, 99][n % 7]!;
    const hasMonthlyTier = !unpriced && n % 3 === 0;
    return product(`${prefix}-${i}`, {
      name: `${WORDS[n % WORDS.length]} ${['Alpha', 'beta', 'Gamma'][n % 3]}`,
      category: CATEGORIES[n % CATEGORIES.length],
      price,
      currency,
      description: n % 5 === 0 ? `Includes a quokka mascot and plan ${n}` : `Plan number ${n}`,
      pricing_tiers: hasMonthlyTier
        ? [
            { period: YEARLY[n % 3]!, price: price! * 10 },
            { period: MONTHLY[n % 3]!, price: price === 0 ? 1 : price! - 1 },
          ]
        : n % 3 === 1
          ? [{ period: unpriced ? 'per lunar month' : YEARLY[n % 3]!, price: (price ?? 1) * 11 }]
          : null,
      features: FEATURES.filter((_, f) => (n + f) % 3 === 0),
      datacenter_locations: LOCATIONS.filter((_, l) => (n + l) % 2 === 0),
    });
  });
}

/** The rate the test imports: prices in USD are compared in EUR through it. */
const USD_PER_EUR = 1.25;

function modelOf(
  host: string,
  payload: Record<string, unknown>[],
  answer: { products: { id: string; external_id: string }[] },
): Synced[] {
  return payload.map((p, i) => {
    const tiers = (p.pricing_tiers as { period: string; price: number }[] | null) ?? [];
    const monthly =
      tiers.find((tier) => canonicalPeriod(tier.period) === 'monthly')?.price ??
      (p.price === null ? null : Number(p.price));
    const currency = String(p.currency).toUpperCase();
    return {
      base: monthly === null ? null : currency === 'EUR' ? monthly : Math.round((monthly / USD_PER_EUR) * 1e6) / 1e6,
      id: answer.products[i]!.id,
      host,
      external_id: String(p.external_id),
      name: String(p.name),
      category: String(p.category),
      price: p.price === null ? null : Number(p.price),
      currency: String(p.currency).toUpperCase(),
      monthly:
        tiers.find((tier) => canonicalPeriod(tier.period) === 'monthly')?.price ??
        (p.price === null ? null : Number(p.price)),
      description: String(p.description),
      features: p.features as string[],
      locations: p.datacenter_locations as string[],
    };
  });
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The expected order; sorted by price, products without one come after every priced one, in both orders. */
function sorted(products: Synced[], sort: 'price' | 'newest' | 'name', order: 'asc' | 'desc'): string[] {
  const compare = (a: Synced, b: Synced): number => {
    const primary =
      sort === 'price'
        ? a.base! - b.base!
        : sort === 'name'
          ? byCodeUnits(a.name.toLowerCase(), b.name.toLowerCase())
          : 0;
    return primary !== 0 ? primary : byCodeUnits(a.id, b.id);
  };
  const inOrder = (list: Synced[]) => {
    const ordered = [...list].sort(compare);
    return order === 'asc' ? ordered : ordered.reverse();
  };
  if (sort !== 'price') return inOrder(products).map((p) => p.id);
  const priced = inOrder(products.filter((p) => p.base !== null));
  const unpriced = inOrder(products.filter((p) => p.base === null));
  return [...priced, ...unpriced].map((p) => p.id);
}

/** Every page of a search, following next_cursor until it is null. */
async function walk(
  server: TestServer,
  path: string,
  query: Record<string, string>,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const params: URLSearchParams = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) });
    const answer: Answer = await call(server, 'GET', `${path}?${params}`);
    expect(answer.status, answer.text).toBe(200);
    ids.push(...answer.body.products.map((p: { id: string }) => p.id));
    cursor = answer.body.next_cursor;
    pages += 1;
    expect(pages).toBeLessThan(200);
  } while (cursor !== null);
  return { ids, pages };
}

describe.each(STORES)('public directory API (%s store)', (store) => {
  let server: TestServer;
  let acme: Onboarded;
  let euro: Onboarded;
  let gone: Onboarded;
  /** what the directory must list: active products of active hosts */
  let listed: Synced[];
  let inactiveIds: string[];
  let suspendedIds: string[];

  beforeAll(async () => {
    server = await startServer(store, { env: { SYNC_MAX_PER_WINDOW: '100' } });
    acme = await onboard(server, 'Acme Hosting');
    euro = await onboard(server, 'Euro Servers', { default_currency: 'EUR' });
    gone = await onboard(server, 'Gone Hosting');
    // Prices are compared in EUR: dollars through this rate.
    expect((await admin(server, 'POST', '/rates', { date: '2026-11-20', rates: { USD: USD_PER_EUR } })).status).toBe(
      200,
    );

    const acmeFirst = catalogue('a', 30, 'usd', 0);
    const first = await sync(server, acme.key, acmeFirst);
    expect(first.status, first.text).toBe(200);
    // The second sync drops five products: they become inactive and must vanish from the directory.
    const acmeSecond = acmeFirst.slice(0, 25);
    const second = await sync(server, acme.key, acmeSecond);
    expect(second.body.summary.deactivated).toBe(5);
    inactiveIds = second.body.deactivated.map((d: { id: string }) => d.id);

    const euroPayload = catalogue('e', 24, 'eur', 7);
    const euroAnswer = await sync(server, euro.key, euroPayload);
    expect(euroAnswer.status, euroAnswer.text).toBe(200);

    const gonePayload = catalogue('g', 8, 'usd', 3).map((p) => ({ ...p, description: 'quokka hidden when suspended' }));
    const goneAnswer = await sync(server, gone.key, gonePayload);
    suspendedIds = goneAnswer.body.products.map((p: { id: string }) => p.id);
    expect((await admin(server, 'POST', `/hosts/${gone.slug}/suspend`)).status).toBe(200);

    listed = [...modelOf(acme.slug, acmeSecond, second.body), ...modelOf(euro.slug, euroPayload, euroAnswer.body)];
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('lists every listed product exactly once when all pages are walked, in every sort and order', async () => {
    for (const sort of ['price', 'newest', 'name'] as const) {
      for (const order of ['asc', 'desc'] as const) {
        const { ids, pages } = await walk(server, '/api/v1/directory/products', { sort, order, limit: '7' });
        expect(pages).toBe(Math.ceil(listed.length / 7));
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids, `${sort} ${order}`).toEqual(sorted(listed, sort, order));
      }
    }
  });

  it("walks one host's listing in every sort and order, each of its products once", async () => {
    // A host's listing chooses its page among narrow rows and then reads them whole (store/directory/product-listing.ts).
    const hosts = [...new Set(listed.map((p) => p.host))];
    expect(hosts.length).toBeGreaterThan(1);
    for (const host of hosts) {
      const mine = listed.filter((p) => p.host === host);
      for (const sort of ['price', 'newest', 'name'] as const) {
        for (const order of ['asc', 'desc'] as const) {
          const { ids, pages } = await walk(server, '/api/v1/directory/products', { host, sort, order, limit: '3' });
          expect(pages).toBe(Math.max(1, Math.ceil(mine.length / 3)));
          expect(ids, `${host} ${sort} ${order}`).toEqual(sorted(mine, sort, order));
        }
      }
    }
  });

  it('defaults to cheapest first, and newest to newest first', async () => {
    const cheapest = await call(server, 'GET', '/api/v1/directory/products?limit=100');
    expect(cheapest.body.products.map((p: { id: string }) => p.id)).toEqual(sorted(listed, 'price', 'asc'));
    const newest = await call(server, 'GET', '/api/v1/directory/products?sort=newest&limit=100');
    expect(newest.body.products.map((p: { id: string }) => p.id)).toEqual(sorted(listed, 'newest', 'desc'));
  });

  it('filters by category, location, feature, currency, maximum monthly price, host and text, alone and together', async () => {
    const cases: [Record<string, string>, (p: Synced) => boolean][] = [
      [{ category: 'dedicated' }, (p) => p.category === 'dedicated'],
      [{ location: 'New York' }, (p) => p.locations.includes('New York')],
      [{ feature: 'DDoS protection' }, (p) => p.features.includes('DDoS protection')],
      [{ currency: 'eur' }, (p) => p.currency === 'EUR'],
      // The boundary is included: 4.99 is at most 4.99.
      // A price limit leaves out the products without a price.
      [{ max_price: '4.99', currency: 'USD' }, (p) => p.currency === 'USD' && p.monthly !== null && p.monthly <= 4.99],
      [{ max_price: '0', currency: 'EUR' }, (p) => p.currency === 'EUR' && p.monthly !== null && p.monthly <= 0],
      [{ host: euro.slug }, (p) => p.host === euro.slug],
      [{ q: 'turbo' }, (p) => /\bturbo/i.test(p.name)],
      // Prefixes, several words (all must match), and the description as well as the name.
      [{ q: 'TUR alph' }, (p) => /\bturbo/i.test(p.name) && /\balpha/i.test(p.name)],
      [{ q: 'quokk' }, (p) => p.description.includes('quokka')],
      [
        { category: 'vps_cloud', location: 'Frankfurt', feature: 'NVMe', max_price: '11', currency: 'usd' },
        (p) =>
          p.category === 'vps_cloud' &&
          p.locations.includes('Frankfurt') &&
          p.features.includes('NVMe') &&
          p.currency === 'USD' &&
          p.monthly !== null &&
          p.monthly <= 11,
      ],
    ];
    for (const [query, matches] of cases) {
      const expected = listed.filter(matches);
      expect(expected.length, JSON.stringify(query)).toBeGreaterThan(0);
      for (const sort of ['price', 'name'] as const) {
        const { ids } = await walk(server, '/api/v1/directory/products', { ...query, sort, limit: '4' });
        expect(ids, `${JSON.stringify(query)} ${sort}`).toEqual(sorted(expected, sort, 'asc'));
      }
    }
  });

  it('lists a product without a price as "Price on request", after every priced product in both orders', async () => {
    const unpriced = listed.filter((p) => p.monthly === null);
    expect(unpriced.length).toBeGreaterThan(1);
    for (const order of ['asc', 'desc'] as const) {
      const { ids } = await walk(server, '/api/v1/directory/products', { sort: 'price', order, limit: '5' });
      expect(ids.slice(-unpriced.length).sort()).toEqual(unpriced.map((p) => p.id).sort());
    }
    // a-15: no price, no tiers. a-7: no price, and only a tier whose period the directory does not recognise.
    const plain = listed.find((p) => p.external_id === 'a-15')!;
    const lunar = listed.find((p) => p.external_id === 'a-7')!;
    for (const model of [plain, lunar]) {
      const json = await call(server, 'GET', `/api/v1/directory/products/${model.id}`);
      expect(json.body.product).toMatchObject({ price: null, monthly_price: null });
    }
    const plainPage = await call(server, 'GET', `/products/${plain.id}`);
    expect(plainPage.status).toBe(200);
    expect(plainPage.text).toContain('Price on request');
    const lunarPage = await call(server, 'GET', `/products/${lunar.id}`);
    expect(lunarPage.text).toContain('per lunar month');
    expect(lunarPage.text).not.toContain('per month<');
    // Both game_minecraft plans of acme, last on the category page however it is sorted.
    for (const sort of ['price', 'price_desc']) {
      const page = await call(server, 'GET', `/categories/game_minecraft?sort=${sort}`);
      expect(page.status).toBe(200);
      const at = (name: string) => page.text.indexOf(`/products/${name}`);
      const pricedPositions = listed
        .filter((p) => p.category === 'game_minecraft' && p.monthly !== null)
        .map((p) => at(p.id));
      expect(Math.max(...pricedPositions)).toBeLessThan(Math.min(at(plain.id), at(lunar.id)));
      expect(page.text).toContain('Price on request');
      expect(page.text).not.toContain('NaN');
    }
  });

  it('answers an empty page for a filter nothing matches, and for a text of punctuation only', async () => {
    for (const query of ['category=colocation', 'location=Mars', 'q=zzzzz', 'q=%22%26%7C!', 'feature=quantum']) {
      const answer = await call(server, 'GET', `/api/v1/directory/products?${query}`);
      expect(answer.status, query).toBe(200);
      expect(answer.body, query).toEqual({
        products: [],
        next_cursor: null,
        display_currency: 'EUR',
        unconverted_currencies: [],
      });
    }
  });

  it('never shows inactive products or anything of a suspended host', async () => {
    const all = await walk(server, '/api/v1/directory/products', { limit: '100' });
    for (const id of [...inactiveIds, ...suspendedIds]) expect(all.ids).not.toContain(id);
    const quokka = await walk(server, '/api/v1/directory/products', { q: 'hidden suspended' });
    expect(quokka.ids).toEqual([]);
    for (const id of [...inactiveIds, ...suspendedIds]) {
      const answer = await call(server, 'GET', `/api/v1/directory/products/${id}`);
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(answer.body.code).toBe('NOT_FOUND');
    }
    const hosts = await call(server, 'GET', '/api/v1/directory/hosts');
    expect(hosts.body.hosts.map((h: { slug: string }) => h.slug)).toEqual([acme.slug, euro.slug].sort());
    expect((await call(server, 'GET', `/api/v1/directory/hosts/${gone.slug}`)).status).toBe(404);
    expect((await call(server, 'GET', `/api/v1/directory/products?host=${gone.slug}`)).body.products).toEqual([]);
  });

  it('shows a product with exactly the documented fields, prices as numbers and its monthly price', async () => {
    const model = listed.find((p) => p.external_id === 'a-3')!;
    const answer = await call(server, 'GET', `/api/v1/directory/products/${model.id}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('application/json');
    const shown = answer.body.product;
    expect(Object.keys(shown).sort()).toEqual(
      [
        'category',
        'comparable_specs',
        'confirmed_at',
        'contract_duration',
        'created_at',
        'currency',
        'datacenter_locations',
        'description',
        'features',
        'host',
        'id',
        'monthly_price',
        'name',
        'places',
        'price',
        'price_drop',
        'pricing_tiers',
        'setup_fee',
        'specs',
        'stale',
        'updated_at',
        'monthly_equivalent',
        'base_monthly_price',
        'order_url',
        'cost',
        'converted',
        'price_per',
        'stock',
        'available',
      ].sort(),
    );
    expect(shown).toMatchObject({
      id: model.id,
      name: model.name,
      price: model.price,
      monthly_price: model.monthly,
      currency: 'USD',
      contract_duration: 'P1M',
      specs: { cpu_cores: '2', ram_gb: '4', disk_gb: '80', ipv6: 'true' },
      comparable_specs: { cpu_cores: 2, ram_gb: 4, disk_gb: 80 },
      host: { slug: acme.slug, name: 'Acme Hosting' },
    });
    expect(shown.monthly_price).not.toBe(shown.price);
    expect((await call(server, 'GET', '/api/v1/directory/products/prd_01ZZZZZZZZZZZZZZZZZZZZZZZZ')).status).toBe(404);
  });

  it('lists hosts with their active product counts, paged', async () => {
    const first = await call(server, 'GET', '/api/v1/directory/hosts?limit=1');
    expect(first.status).toBe(200);
    expect(first.body.hosts).toEqual([
      expect.objectContaining({ slug: acme.slug, name: 'Acme Hosting', product_count: 25, default_currency: 'USD' }),
    ]);
    expect(first.body.hosts[0].last_synced_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const second = await call(server, 'GET', `/api/v1/directory/hosts?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body).toEqual({
      hosts: [expect.objectContaining({ slug: euro.slug, product_count: 24, default_currency: 'EUR' })],
      next_cursor: null,
    });
  });

  it('shows a host with its products, filtered, sorted and paged like the search', async () => {
    const { ids } = await walk(server, `/api/v1/directory/hosts/${euro.slug}`, {
      sort: 'name',
      order: 'desc',
      limit: '5',
    });
    expect(ids).toEqual(
      sorted(
        listed.filter((p) => p.host === euro.slug),
        'name',
        'desc',
      ),
    );
    const answer = await call(server, 'GET', `/api/v1/directory/hosts/${euro.slug}?category=dedicated`);
    expect(answer.body.host).toMatchObject({ slug: euro.slug, name: 'Euro Servers', product_count: 24 });
    expect(answer.body.products.every((p: { category: string }) => p.category === 'dedicated')).toBe(true);
    expect((await call(server, 'GET', '/api/v1/directory/hosts/no-such-host')).status).toBe(404);
  });

  it('refuses bad parameters with problem+json naming the parameter', async () => {
    const page = await call(server, 'GET', '/api/v1/directory/products?sort=price&limit=2');
    const cases: [string, string][] = [
      ['display_currency=XYZ', 'display_currency'],
      ['display_currency=SEK&max_price=10', 'display_currency'],
      ['sort=popular', 'sort'],
      ['order=up', 'order'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['max_price=-1&currency=USD', 'max_price'],
      ['currency=dollars', 'currency'],
      ['cursor=not-a-cursor', 'cursor'],
      // A cursor only continues the sort it came from.
      [`sort=name&cursor=${page.body.next_cursor}`, 'cursor'],
      [`sort=price&order=desc&cursor=${page.body.next_cursor}`, 'cursor'],
    ];
    for (const [query, parameter] of cases) {
      const answer = await call(server, 'GET', `/api/v1/directory/products?${query}`);
      expect(answer.status, query).toBe(422);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(answer.body.code).toBe('VALIDATION_FAILED');
      expect(
        answer.body.errors.map((e: { parameter: string }) => e.parameter),
        query,
      ).toContain(parameter);
    }
    expect((await call(server, 'GET', '/api/v1/directory/hosts?cursor=%21%21')).status).toBe(422);
  });

  it('revalidates by ETag and shows a sync as soon as it is applied', async () => {
    const path = `/api/v1/directory/hosts/${acme.slug}?limit=100`;
    const before = await call(server, 'GET', path);
    const etag = before.headers.get('etag');
    expect(etag).toMatch(/^W\/".+"$/);
    expect(before.headers.get('cache-control')).toBe('public, max-age=1, s-maxage=5, stale-while-revalidate=5');
    const again = await call(server, 'GET', path, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');

    const renamed = catalogue('a', 25, 'usd', 0).map((p, i) =>
      i === 0 ? { ...p, name: 'Renamed Plan', price: 1.25, pricing_tiers: null } : p,
    );
    expect((await sync(server, acme.key, renamed)).status).toBe(200);
    const after = await call(server, 'GET', path, { headers: { 'if-none-match': etag! } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(after.body.products.find((p: { name: string }) => p.name === 'Renamed Plan')).toMatchObject({
      price: 1.25,
      monthly_price: 1.25,
    });
    const found = await call(server, 'GET', '/api/v1/directory/products?q=renamed');
    expect(found.body.products.map((p: { name: string }) => p.name)).toEqual(['Renamed Plan']);
  });

  it('answers HTML pages, with an HTML 404 for unknown slugs and ids', async () => {
    for (const path of [
      '/',
      '/hosts',
      `/hosts/${acme.slug}`,
      '/categories/vps_cloud',
      '/search?q=turbo',
      `/products/${listed[1]!.id}`,
    ]) {
      const page = await call(server, 'GET', path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.text).toMatch(/^<!doctype html>/);
      expect(Buffer.byteLength(page.text)).toBeLessThan(100 * 1024);
    }
    for (const path of [
      `/hosts/${gone.slug}`,
      '/hosts/nobody',
      '/categories/nothing',
      `/products/${inactiveIds[0]}`,
      `/products/${suspendedIds[0]}`,
    ]) {
      const page = await call(server, 'GET', path);
      expect(page.status, path).toBe(404);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('<h1>Not found</h1>');
    }
    const api = await call(server, 'GET', '/api/v1/directory/nothing', { headers: { accept: 'text/html' } });
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/problem+json');
  });

  it('escapes what providers send on every page', async () => {
    const hostile = product('xss', {
      name: '<script>alert(1)</script>',
      description: '"><img src=x onerror=alert(2)>',
      specs: { '<b>key</b>': '<i>value</i>' },
      features: ['<u>f</u>'],
      datacenter_locations: ['<s>l</s>'],
    });
    const x = await onboard(server, 'Escape Test');
    expect((await sync(server, x.key, [hostile])).status).toBe(200);
    const id = (await call(server, 'GET', `/api/v1/directory/products?host=${x.slug}`)).body.products[0].id;
    for (const path of [
      `/products/${id}`,
      `/hosts/${x.slug}`,
      '/search?q=script',
      `/search?q=${encodeURIComponent('<script>')}`,
    ]) {
      const page = await call(server, 'GET', path);
      expect(page.text, path).not.toMatch(/<script>|<img|<b>key|<i>value|<u>f|<s>l/);
    }
    expect((await call(server, 'GET', `/products/${id}`)).text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});
