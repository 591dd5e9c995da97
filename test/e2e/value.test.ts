// Value for money: each plan's monthly price per GB of RAM, per CPU core and per GB of disk in the display currency,
// the sorts by them across currencies, and a plan's cheaper alternatives from other providers; over HTTP on both
// stores, in the JSON API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync } from '../support/api.js';
import { startInProcessServer, STORES, type ServerUnderTest } from '../support/server.js';

/** EUR buys 1.25 USD and 0.8 GBP. */
const RATES = { USD: '1.25', GBP: '0.8' };

const plan = (externalId: string, price: number, specs: Record<string, number> | null, category = 'vps_cloud') =>
  product(externalId, {
    name: `Plan ${externalId}`,
    price,
    currency: undefined,
    category,
    specs,
    pricing_tiers: [{ period: 'monthly', price }],
  });

/**
 * Plans in three currencies. In EUR: e1 10, e2 3 (no specs), e3 5, d1 8, d2 12, d3 4 (dedicated), g1 6, g2 7,
 * g3 1.25 (no specs).
 */
const CATALOGUES = {
  euro: [
    plan('e1', 10, { ram_gb: 4, cpu_cores: 2, disk_gb: 100 }),
    plan('e2', 3, null),
    plan('e3', 5, { ram_gb: 16, cpu_cores: 8, disk_gb: 400 }),
  ],
  dollar: [
    plan('d1', 10, { ram_gb: 8, cpu_cores: 2, disk_gb: 200 }),
    plan('d2', 15, { ram_gb: 16, cpu_cores: 6, disk_gb: 320, bandwidth_tb: 4 }),
    plan('d3', 5, { ram_gb: 32, cpu_cores: 8, disk_gb: 1000 }, 'dedicated'),
  ],
  pound: [
    plan('g1', 4.8, { ram_gb: 4, cpu_cores: 2, disk_gb: 40 }),
    plan('g2', 5.6, { ram_gb: 4, cpu_cores: 4, disk_gb: 100, bandwidth_tb: 1_000_000_000 }),
    plan('g3', 1, null),
    plan('g4', 2, { ram_gb: 2, player_slots: 16 }, 'game_minecraft'),
  ],
};

describe.each(STORES)('price per resource and cheaper alternatives (%s store)', (store) => {
  let server: ServerUnderTest;
  const ids = new Map<string, string>();
  const named = (products: { id: string }[]) =>
    products.map((p) => [...ids].find(([, id]) => id === p.id)?.[0] ?? p.id);

  beforeAll(async () => {
    server = await startInProcessServer(store, { env: { DISPLAY_CURRENCY: 'EUR' } });
    expect((await admin(server, 'POST', '/rates', { date: '2026-11-20', rates: RATES })).status).toBe(200);
    const currencies = { euro: 'EUR', dollar: 'USD', pound: 'GBP' } as const;
    for (const [name, catalogue] of Object.entries(CATALOGUES)) {
      const host = await onboard(server, `${name} hosting`, {
        default_currency: currencies[name as keyof typeof currencies],
      });
      const answer = await sync(server, host.key, catalogue);
      expect(answer.status, answer.text).toBe(200);
    }
    const listed = await call(server, 'GET', '/api/v1/directory/products?limit=100&sort=newest');
    for (const p of listed.body.products) ids.set(p.name.replace('Plan ', ''), p.id);
    expect(ids.size).toBe(10);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const products = async (query: string) => {
    const answer = await call(server, 'GET', `/api/v1/directory/products?${query}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };
  const byName = async (query: string) =>
    new Map(
      (await products(`limit=100&${query}`)).products.map((p: { id: string; price_per: unknown }) => [
        named([p])[0],
        p.price_per,
      ]),
    );

  it('gives every product its monthly price per GB of RAM, per core and per GB of disk in the display currency', async () => {
    const inEuro = await byName('display_currency=EUR');
    expect(inEuro.get('e1')).toEqual({ ram_gb: 2.5, cpu_core: 5, disk_gb: 0.1, traffic_tb: null });
    // $15 is €12: €0.75 per GB of RAM; traffic of 4 TB, €3 per TB.
    expect(inEuro.get('d2')).toEqual({ ram_gb: 0.75, cpu_core: 2, disk_gb: 0.0375, traffic_tb: 3 });
    // Unmetered traffic has no price per TB.
    expect(inEuro.get('g2')).toEqual({ ram_gb: 1.75, cpu_core: 1.75, disk_gb: 0.07, traffic_tb: null });
    // No specs: every figure unknown.
    expect(inEuro.get('e2')).toEqual({ ram_gb: null, cpu_core: null, disk_gb: null, traffic_tb: null });
    // A game server: per player slot, and no traffic.
    expect(inEuro.get('g4')).toEqual({ ram_gb: 1.25, cpu_core: null, disk_gb: null, player_slot: 0.1563 });

    const inDollars = await byName('display_currency=USD');
    expect(inDollars.get('d1')).toEqual({ ram_gb: 1.25, cpu_core: 5, disk_gb: 0.05, traffic_tb: null });
    expect(inDollars.get('e1')).toEqual({ ram_gb: 3.125, cpu_core: 6.25, disk_gb: 0.125, traffic_tb: null });
    const inPounds = await byName('display_currency=GBP');
    expect(inPounds.get('g1')).toEqual({ ram_gb: 1.2, cpu_core: 2.4, disk_gb: 0.12, traffic_tb: null });
    expect(inPounds.get('d1')).toEqual({ ram_gb: 0.8, cpu_core: 3.2, disk_gb: 0.032, traffic_tb: null });

    const one = await call(server, 'GET', `/api/v1/directory/products/${ids.get('g1')}?display_currency=USD`);
    expect(one.body.product.price_per).toEqual({ ram_gb: 1.875, cpu_core: 3.75, disk_gb: 0.1875, traffic_tb: null });
  });

  const ORDERS = {
    price_per_ram_gb: ['e3', 'd2', 'd1', 'g1', 'g2', 'e1'],
    price_per_cpu_core: ['e3', 'g2', 'd2', 'g1', 'd1', 'e1'],
    price_per_disk_gb: ['e3', 'd2', 'd1', 'g2', 'e1', 'g1'],
  };
  /** The products without the figure, after the others in both orders: by id in the order's direction. */
  const withoutFigure = () => ['e2', 'g3'].sort((a, b) => (ids.get(a)! < ids.get(b)! ? -1 : 1));

  it('sorts by price per resource across currencies, cheapest first, the products without the figure last', async () => {
    for (const [sort, order] of Object.entries(ORDERS)) {
      for (const display of ['EUR', 'USD', 'GBP']) {
        const page = await products(`category=vps_cloud&sort=${sort}&display_currency=${display}&limit=100`);
        expect(named(page.products), `${sort} in ${display}`).toEqual([...order, ...withoutFigure()]);
        const key = sort.replace('price_per_', '');
        const figures = page.products.slice(0, order.length).map((p: { price_per: Record<string, number> }) => {
          return p.price_per[key];
        });
        expect(figures).toEqual([...figures].sort((a, b) => a - b));
      }
      const descending = await products(`category=vps_cloud&sort=${sort}&order=desc&limit=100`);
      expect(named(descending.products), `${sort} desc`).toEqual(
        [...order].reverse().concat(withoutFigure().reverse()),
      );
    }
  });

  it('pages through a sort by price per resource without gaps or repeats, within a currency too', async () => {
    for (const [sort, order] of Object.entries(ORDERS)) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { products: { id: string }[]; next_cursor: string | null } = await products(
          `category=vps_cloud&sort=${sort}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        );
        seen.push(...named(page.products));
        cursor = page.next_cursor;
      } while (cursor !== null);
      expect(seen).toEqual([...order, ...withoutFigure()]);
    }
    const pounds = await products('currency=GBP&sort=price_per_ram_gb&limit=100');
    expect(named(pounds.products)).toEqual(['g4', 'g1', 'g2', 'g3']);
    const everywhere = await products('sort=price_per_disk_gb&limit=3');
    expect(named(everywhere.products)).toEqual(['d3', 'e3', 'd2']);
  });

  it('names the allowed sorts, the prices per resource among them, for an unknown one', async () => {
    const answer = await call(server, 'GET', '/api/v1/directory/products?sort=price_per_gpu');
    expect(answer.status).toBe(422);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.body.errors).toHaveLength(1);
    expect(answer.body.errors[0].detail).toContain('price_per_ram_gb, price_per_cpu_core, price_per_disk_gb');
  });

  const alternatives = async (name: string, query = '') => {
    const answer = await call(server, 'GET', `/api/v1/directory/products/${ids.get(name)}/alternatives${query}`);
    expect(answer.status, answer.text).toBe(200);
    return answer.body;
  };

  it("lists cheaper plans of other providers in the plan's category with at least its RAM, cores and disk", async () => {
    // For e1 (€10; 4 GB, 2 cores, 100 GB): not e3 (its own provider), g1 (40 GB disk), d2 (dearer), d3 (dedicated),
    // g3 (states no specs).
    const found = await alternatives('e1');
    expect(found.product_id).toBe(ids.get('e1'));
    expect(named(found.alternatives)).toEqual(['g2', 'd1']);
    expect(found.display_currency).toBe('EUR');
    expect(found.alternatives.map((p: { converted: { monthly: number } }) => p.converted.monthly)).toEqual([7, 8]);
    expect(found.alternatives[0].price_per).toEqual({ ram_gb: 1.75, cpu_core: 1.75, disk_gb: 0.07, traffic_tb: null });

    const inDollars = await alternatives('e1', '?display_currency=USD&limit=1');
    expect(named(inDollars.alternatives)).toEqual(['g2']);
    expect(inDollars.alternatives[0].converted).toMatchObject({ currency: 'USD', monthly: 8.75 });

    // A plan that states no specs: any cheaper plan of another provider in its category.
    expect(named((await alternatives('e2')).alternatives)).toEqual(['g3']);
    // d2 (€12; 16 GB, 6 cores, 320 GB): e3 has 16 GB and 8 cores but 400 GB, and is cheaper.
    expect(named((await alternatives('d2')).alternatives)).toEqual(['e3']);
    // The cheapest of its category, and the only dedicated plan: none.
    expect((await alternatives('g3')).alternatives).toEqual([]);
    expect((await alternatives('d3')).alternatives).toEqual([]);
  });

  it('orders by the new figures once a rates import changes a currency, every write of the EUR price following', async () => {
    // EUR now buys 0.8 USD: d1 costs €12.50 (€1.5625 per GB), d2 €18.75 (€1.171875 per GB).
    expect((await admin(server, 'POST', '/rates', { date: '2026-11-21', rates: { USD: '0.8' } })).status).toBe(200);
    const page = await products('category=vps_cloud&sort=price_per_ram_gb&display_currency=EUR&limit=100');
    expect(named(page.products)).toEqual(['e3', 'd2', 'g1', 'd1', 'g2', 'e1', ...withoutFigure()]);
    expect(page.products[1].price_per.ram_gb).toBe(1.1719);
    // d1 is now dearer than e1 (€10): no longer its alternative.
    expect(named((await alternatives('e1')).alternatives)).toEqual(['g2']);
    expect((await admin(server, 'POST', '/rates', { date: '2026-11-22', rates: { USD: '1.25' } })).status).toBe(200);
  });

  it('answers 404 problem+json for a product it does not list, and 422 for a limit out of range', async () => {
    const unknown = await call(server, 'GET', '/api/v1/directory/products/prd_nosuchproduct/alternatives');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(unknown.body.detail).toContain('prd_nosuchproduct');
    const tooMany = await call(server, 'GET', `/api/v1/directory/products/${ids.get('e1')}/alternatives?limit=500`);
    expect(tooMany.status).toBe(422);
  });
});

describe.each(STORES)('price per resource on the pages (%s store)', (store) => {
  let server: ServerUnderTest;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    server = await startInProcessServer(store, { env: { DISPLAY_CURRENCY: 'EUR' } });
    expect((await admin(server, 'POST', '/rates', { date: '2026-11-20', rates: RATES })).status).toBe(200);
    const euro = await onboard(server, 'Euro hosting', { default_currency: 'EUR' });
    const dollar = await onboard(server, 'Dollar hosting', { default_currency: 'USD' });
    expect((await sync(server, euro.key, CATALOGUES.euro)).status).toBe(200);
    expect((await sync(server, dollar.key, CATALOGUES.dollar)).status).toBe(200);
    const listed = await call(server, 'GET', '/api/v1/directory/products?limit=100');
    for (const p of listed.body.products) ids.set(p.name.replace('Plan ', ''), p.id);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const page = async (pathAndQuery: string) => {
    const response = await fetch(`${server.url}${pathAndQuery}`);
    expect(response.status, pathAndQuery).toBe(200);
    return response.text();
  };
  const cardNames = (text: string) =>
    [...text.matchAll(/<li class="card">\s*<h2><a href="[^"]*">([^<]*)<\/a><\/h2>/g)].map((match) => match[1]!);

  it('shows each card its price per GB of RAM, per core and per GB of disk, and sorts the cards by it', async () => {
    const cards = await page('/categories/vps_cloud?sort=price_per_ram_gb&display_currency=USD');
    expect(cardNames(cards)).toEqual(['Plan e3', 'Plan d2', 'Plan d1', 'Plan e1', 'Plan e2']);
    // d1: $10 a month for 8 GB, 2 cores, 200 GB.
    expect(cards).toContain(
      '<p class="per"><span class="muted">Per month:</span> <span>$1.25 per GB RAM</span><span class="sep"> · </span>' +
        '<span>$5.00 per CPU core</span><span class="sep"> · </span><span>$0.05 per GB disk</span></p>',
    );
    // The sort is one of the form's, selected.
    expect(cards).toContain('<option value="price_per_ram_gb" selected>Price per GB RAM: lowest first</option>');
    const inEuro = await page('/categories/vps_cloud?sort=price_per_disk_gb');
    expect(cardNames(inEuro)).toEqual(['Plan e3', 'Plan d2', 'Plan d1', 'Plan e1', 'Plan e2']);
    expect(inEuro).toContain('<span>€0.0375 per GB disk</span>');
  });

  it('shows each table row its price per resource in the display currency beside its price, sorted by it', async () => {
    const table = await page('/categories/vps_cloud?view=table&sort=price_per_cpu_core&display_currency=EUR');
    const rows = [...table.matchAll(/<th scope="row"><a href="[^"]*">([^<]*)<\/a>/g)].map((match) => match[1]);
    // e3 €0.625, d2 €2, d1 €4, e1 €5 per core; e2 gives no cores.
    expect(rows).toEqual(['Plan e3', 'Plan d2', 'Plan d1', 'Plan e1', 'Plan e2']);
    expect(table).toContain(
      '<span>€0.3125 per GB RAM</span><span class="sep"> · </span><span>€0.625 per CPU core</span><span class="sep"> · </span>' +
        '<span>€0.0125 per GB disk</span></p>',
    );
  });

  it("lists a plan's cheaper alternatives on its page, in the display currency, and its price per resource", async () => {
    const e1 = await page(`/products/${ids.get('e1')}?display_currency=USD`);
    expect(e1).toContain('<h2 id="alternatives">Cheaper alternatives</h2>');
    expect(e1).toContain(
      'that cost less per month, with at least its RAM 4 GB, CPU cores 2, Disk 100 GB; cheapest first.',
    );
    // d1 ($10, €8) has more of everything; d2 costs more, e3 is the same provider's, d3 another category.
    const listed = e1.slice(
      e1.indexOf('<ul class="alternatives">'),
      e1.indexOf('</ul>', e1.indexOf('<ul class="alternatives">')),
    );
    expect(
      [...listed.matchAll(/<a href="\/products\/([^"?]*)\?display_currency=USD">([^<]*)<\/a>/g)].map((m) => [
        m[1],
        m[2],
      ]),
    ).toEqual([[ids.get('d1'), 'Plan d1']]);
    expect(listed).toContain('<strong>$10.00</strong> per month');
    expect(e1).toContain(
      '<span>$3.13 per GB RAM</span><span class="sep"> · </span><span>$6.25 per CPU core</span><span class="sep"> · </span>' +
        '<span>$0.125 per GB disk</span>',
    );
    const e3 = await page(`/products/${ids.get('e3')}`);
    expect(e3).toContain('No other provider lists a cheaper plan in this category with at least these specs.');
  });

  it('compares the price per resource in the display currency, the lowest of each marked', async () => {
    const compared = await page(`/compare?ids=${ids.get('e1')},${ids.get('d1')}&display_currency=EUR`);
    expect(compared).toContain(
      '<tr><th scope="row">Price per GB RAM, monthly</th><td>€2.50</td><td>€1.00 <span class="best">Lowest</span></td></tr>',
    );
    expect(compared).toContain(
      '<tr><th scope="row">Price per CPU core, monthly</th><td>€5.00</td><td>€4.00 <span class="best">Lowest</span></td></tr>',
    );
    expect(compared).toContain(
      '<tr><th scope="row">Price per GB disk, monthly</th><td>€0.10</td><td>€0.04 <span class="best">Lowest</span></td></tr>',
    );
    const json = await call(
      server,
      'GET',
      `/api/v1/directory/compare?ids=${ids.get('e1')},${ids.get('d1')}&display_currency=USD`,
    );
    expect(json.status).toBe(200);
    expect(json.body.rows.find((row: { key: string }) => row.key === 'price_per_ram_gb')).toMatchObject({
      values: ['$3.13', '$1.25'],
      better: 'lower',
      best: [1],
    });
  });
});
