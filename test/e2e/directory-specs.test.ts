// Comparable specs, search across fields, case-insensitive location and feature filters, countries, spec ranges,
// the table view, comparing plans and the messages for invalid filters: over HTTP, on both stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { startServer, STORES, type TestServer } from '../support/server.js';

const plan = (id: string, fields: Record<string, unknown>) =>
  product(id, {
    description: null,
    pricing_tiers: null,
    setup_fee: null,
    contract_duration: null,
    features: null,
    specs: null,
    ...fields,
  });

const QUASAR = [
  plan('alpha', {
    name: 'Alpha VPS',
    price: 5,
    specs: { Memory: '4 GB', CPU: '2 vCores', Disk: '80 GB NVMe', Traffic: '20 TB', Port: '1 Gbit/s' },
    features: ['DDoS-Protection'],
    datacenter_locations: ['FRA'],
  }),
  plan('beta', {
    name: 'Beta VPS',
    price: 10,
    specs: { 'RAM (GB)': '8', cpu_cores: 4, disk_gb: 160, disk_type: 'SSD' },
    features: ['ddos protection', 'Backups'],
    datacenter_locations: ['Frankfurt am Main'],
  }),
  plan('gamma', {
    name: 'Gamma VPS',
    price: 20,
    specs: { ram: '16384 MB', vCPU: '8', Storage: '2x 1TB NVMe', Bandwidth: 'unmetered' },
    features: ['IPv6'],
    datacenter_locations: ['Amsterdam, NL'],
  }),
  plan('delta', { name: 'Delta VPS', price: 3, datacenter_locations: ['Mars Base One'] }),
  plan('creeper', {
    name: 'Creeper',
    category: 'game_minecraft',
    price: 4,
    specs: { Slots: '20', RAM: '2048 MB' },
    datacenter_locations: ['frankfurt'],
  }),
  plan('site', {
    name: 'Site Starter',
    category: 'web_shared',
    price: 2,
    specs: { Websites: '1', 'Web space': '10 GB', 'Email accounts': 'unlimited' },
    datacenter_locations: ['London (UK)'],
  }),
];

const HOSTILE = plan('hostile', {
  name: 'Hostile <b>box</b>',
  category: 'dedicated',
  price: 50,
  specs: { '<script>k</script>': '<img src=x onerror=alert(1)>', RAM: '<b>64 GB</b>' },
  datacenter_locations: ['<i>Berlin</i>'],
  features: ['<u>feat</u>'],
});

const names = (body: { products: { name: string }[] }) => body.products.map((p) => p.name).sort();

for (const store of STORES) {
  describe(`comparable specs and search (${store})`, () => {
    let server: TestServer;
    let quasar: Onboarded;
    let ids: Record<string, string>;

    beforeAll(async () => {
      server = await startServer(store);
      quasar = await onboard(server, 'Quasar Hosting');
      const orbit = await onboard(server, 'Orbit Cloud');
      const synced = await sync(server, quasar.key, QUASAR);
      expect(synced.status, synced.text).toBe(200);
      expect((await sync(server, orbit.key, [HOSTILE])).status).toBe(200);
      const listed = await call(server, 'GET', '/api/v1/directory/products?limit=100');
      ids = Object.fromEntries(
        listed.body.products.map((p: { name: string; id: string }) => [p.name.split(' ')[0]!.toLowerCase(), p.id]),
      );
    });

    afterAll(async () => {
      await server?.stop();
    });

    const products = (query: string) => call(server, 'GET', `/api/v1/directory/products?limit=100&${query}`);

    it('stores the normalized specs beside the specs as sent', async () => {
      const alpha = (await call(server, 'GET', `/api/v1/directory/products/${ids.alpha}`)).body.product;
      expect(alpha.specs).toEqual({
        Memory: '4 GB',
        CPU: '2 vCores',
        Disk: '80 GB NVMe',
        Traffic: '20 TB',
        Port: '1 Gbit/s',
      });
      expect(alpha.comparable_specs).toEqual({
        ram_gb: 4,
        cpu_cores: 2,
        disk_gb: 80,
        disk_type: 'nvme',
        bandwidth_tb: 20,
        port_mbps: 1000,
      });
      expect(alpha.places).toEqual([{ location: 'FRA', city: 'Frankfurt', country: 'DE' }]);
      const gamma = (await call(server, 'GET', `/api/v1/directory/products/${ids.gamma}`)).body.product;
      expect(gamma.comparable_specs).toEqual({
        ram_gb: 16,
        cpu_cores: 8,
        disk_gb: 2000,
        disk_type: 'nvme',
        bandwidth_tb: 1_000_000_000,
      });
      const site = (await call(server, 'GET', `/api/v1/directory/products/${ids.site}`)).body.product;
      expect(site.comparable_specs).toEqual({ websites: 1, storage_gb: 10, email_accounts: 1_000_000_000 });
      const delta = (await call(server, 'GET', `/api/v1/directory/products/${ids.delta}`)).body.product;
      expect(delta.places).toEqual([{ location: 'Mars Base One', city: null, country: null }]);
    });

    it('finds words in names, provider names, category labels, features, locations, countries and spec words', async () => {
      const cases: [string, string[]][] = [
        ['nvme vps frankfurt', ['Alpha VPS']],
        ['ddos', ['Alpha VPS', 'Beta VPS']],
        ['DDoS protection', ['Alpha VPS', 'Beta VPS']],
        ['quasar', QUASAR.map((p) => String(p.name)).sort()],
        ['orbit', ['Hostile <b>box</b>']],
        ['minecraft', ['Creeper']],
        ['amsterdam', ['Gamma VPS']],
        ['netherlands', ['Gamma VPS']],
        ['unmetered', ['Gamma VPS']],
        ['ssd frankfurt', ['Beta VPS']],
        ['mars', ['Delta VPS']],
        ['zzzz', []],
      ];
      for (const [q, expected] of cases) {
        const answer = await products(`q=${encodeURIComponent(q)}`);
        expect(answer.status, q).toBe(200);
        expect(names(answer.body), q).toEqual([...expected].sort());
      }
    });

    it('finds sizes typed with their unit, places by any of their names, and leaves out the words that join others', async () => {
      const cases: [string, string[]][] = [
        ['16 GB RAM', ['Gamma VPS']],
        ['16gb', ['Gamma VPS']],
        ['4 cores', ['Beta VPS']],
        ['20 slots', ['Creeper']],
        ['1 Gbit', ['Alpha VPS']],
        ['frankfurt am main', ['Alpha VPS', 'Beta VPS', 'Creeper']],
        ['deutschland', ['Alpha VPS', 'Beta VPS', 'Creeper', 'Hostile <b>box</b>']],
        ['great britain', ['Site Starter']],
        ['vps in amsterdam', ['Gamma VPS']],
      ];
      for (const [q, expected] of cases) {
        const answer = await products(`q=${encodeURIComponent(q)}`);
        expect(answer.status, q).toBe(200);
        expect(names(answer.body), q).toEqual([...expected].sort());
      }
    });

    it('names the words no plan matches on a search that found nothing, with the search without them', async () => {
      const page = await call(server, 'GET', '/search?q=cheap+vps');
      expect(page.status).toBe(200);
      expect(page.text).toContain(
        'No plan here matches “cheap”. <a href="/search?q=vps">Search for “vps” instead</a>.',
      );
      expect((await call(server, 'GET', '/search?q=vps')).text).toContain('4 plans');
      const filtered = await call(server, 'GET', '/categories/vps_cloud?q=quokka+alpha');
      expect(filtered.text).toContain(
        'No plan here matches “quokka”. <a href="/categories/vps_cloud?q=alpha">Search for “alpha” instead</a>.',
      );
      // Each word matches on its own, not together: nothing to name.
      const apart = await call(server, 'GET', '/search?q=creeper+amsterdam');
      expect(apart.text).toContain('No plan here matches all of “creeper amsterdam” at once. Try fewer words.');
      expect(apart.text).not.toContain('No plan here matches “');
    });

    it('filters by location and feature ignoring case and spacing, through the gazetteer, and by country', async () => {
      const frankfurt = ['Alpha VPS', 'Beta VPS', 'Creeper'];
      for (const location of ['Frankfurt', 'frankfurt', 'FRA', 'fra', 'Frankfurt am Main', 'FRANKFURT AM MAIN']) {
        expect(names((await products(`location=${encodeURIComponent(location)}`)).body), location).toEqual(frankfurt);
      }
      expect(names((await products('location=mars%20base%20one')).body)).toEqual(['Delta VPS']);
      expect(names((await products('location=MarsBaseOne')).body)).toEqual(['Delta VPS']);
      for (const feature of ['DDoS protection', 'ddos-protection', 'DDOSPROTECTION']) {
        expect(names((await products(`feature=${encodeURIComponent(feature)}`)).body), feature).toEqual([
          'Alpha VPS',
          'Beta VPS',
        ]);
      }
      expect(names((await products('country=de')).body)).toEqual([...frankfurt, 'Hostile <b>box</b>'].sort());
      expect(names((await products('country=NL')).body)).toEqual(['Gamma VPS']);
      expect(names((await products('country=GB')).body)).toEqual(['Site Starter']);
      expect(names((await products('country=DE&category=vps_cloud')).body)).toEqual(['Alpha VPS', 'Beta VPS']);
    });

    it('filters by spec ranges, boundaries included, leaving out plans that do not give the spec', async () => {
      const cases: [string, string[]][] = [
        ['min_ram_gb=8&category=vps_cloud', ['Beta VPS', 'Gamma VPS']],
        ['min_ram_gb=4&max_ram_gb=8', ['Alpha VPS', 'Beta VPS']],
        ['max_cpu_cores=4', ['Alpha VPS', 'Beta VPS']],
        ['min_bandwidth_tb=100', ['Gamma VPS']],
        ['max_bandwidth_tb=100', ['Alpha VPS']],
        ['min_player_slots=10', ['Creeper']],
        ['min_email_accounts=5', ['Site Starter']],
        ['min_disk_gb=100&disk_type=nvme', ['Gamma VPS']],
        ['min_ram_gb=0.5&country=DE&sort=price', ['Alpha VPS', 'Beta VPS', 'Creeper', 'Hostile <b>box</b>']],
      ];
      for (const [query, expected] of cases) {
        const answer = await products(query);
        expect(answer.status, query).toBe(200);
        expect(names(answer.body), query).toEqual(expected);
      }
    });

    it('sorts by a spec with keyset paging, plans without it last in both orders', async () => {
      for (const [order, expected] of [
        ['asc', ['Alpha VPS', 'Beta VPS', 'Gamma VPS', 'Delta VPS']],
        ['desc', ['Gamma VPS', 'Beta VPS', 'Alpha VPS', 'Delta VPS']],
      ] as const) {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const answer: { body: { products: { name: string }[]; next_cursor: string | null } } = await call(
            server,
            'GET',
            `/api/v1/directory/products?category=vps_cloud&sort=ram_gb&order=${order}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
          );
          seen.push(...answer.body.products.map((p) => p.name));
          cursor = answer.body.next_cursor;
        } while (cursor);
        expect(seen, order).toEqual(expected);
      }
    });

    it('pages through spec sorts no index serves (across categories, or a spec other than RAM) as a sort of the whole listing does', async () => {
      type Listed = { id: string; name: string; comparable_specs: Record<string, unknown> };
      const byId = (a: Listed, b: Listed) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      for (const [query, key] of [
        ['sort=ram_gb', 'ram_gb'],
        ['sort=cpu_cores', 'cpu_cores'],
        ['sort=disk_gb&category=vps_cloud', 'disk_gb'],
        ['sort=bandwidth_tb&q=vps', 'bandwidth_tb'],
      ] as const) {
        const listed = await products(query.replace(/sort=\w+/, 'sort=newest'));
        for (const order of ['asc', 'desc'] as const) {
          const sign = order === 'asc' ? 1 : -1;
          const value = (p: Listed) => p.comparable_specs[key] as number | undefined;
          const given = listed.body.products.filter((p: Listed) => value(p) !== undefined);
          const lacking = listed.body.products.filter((p: Listed) => value(p) === undefined);
          const expected = [
            ...given.sort((a: Listed, b: Listed) => sign * (value(a)! - value(b)! || byId(a, b))),
            ...lacking.sort((a: Listed, b: Listed) => sign * byId(a, b)),
          ].map((p) => p.name);
          expect(given.length, query).toBeGreaterThan(1);
          const seen: string[] = [];
          let cursor: string | null = null;
          do {
            const answer: { body: { products: Listed[]; next_cursor: string | null } } = await call(
              server,
              'GET',
              `/api/v1/directory/products?${query}&order=${order}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
            );
            seen.push(...answer.body.products.map((p) => p.name));
            cursor = answer.body.next_cursor;
          } while (cursor);
          expect(seen, `${query} ${order}`).toEqual(expected);
        }
      }
    });

    it('counts the matches when asked', async () => {
      expect((await products('country=DE&count=true')).body.matches).toEqual({ count: 4, more: false });
      const first = await call(server, 'GET', '/api/v1/directory/products?q=vps&count=true&limit=1');
      expect(first.body.products).toHaveLength(1);
      expect(first.body.matches).toEqual({ count: 4, more: false });
      expect((await products('q=zzzz&count=true')).body.matches).toEqual({ count: 0, more: false });
      expect((await products('country=DE')).body.matches).toBeUndefined();
    });

    it('refuses invalid filters in the JSON API with 422 naming the parameter', async () => {
      for (const [query, parameter] of [
        ['min_ram_gb=lots', 'min_ram_gb'],
        ['min_ram_gb=-1', 'min_ram_gb'],
        ['min_ram_gb=8&max_ram_gb=4', 'min_ram_gb'],
        ['country=Germany', 'country'],
        ['country=XX', 'country'],
        ['disk_type=floppy', 'disk_type'],
        ['sort=ram', 'sort'],
      ]) {
        const answer = await products(query!);
        expect(answer.status, query).toBe(422);
        expect(answer.headers.get('content-type')).toContain('application/problem+json');
        expect(
          answer.body.errors.map((e: { parameter: string }) => e.parameter),
          query,
        ).toContain(parameter);
      }
    });

    it('pages show the count, a way back, clear filters, and a visible message for an invalid filter', async () => {
      const page = await call(server, 'GET', '/categories/vps_cloud?min_ram_gb=8&location=frankfurt');
      expect(page.status).toBe(200);
      expect(page.text).toContain('>1 plan<');
      expect(page.text).toContain('Beta VPS');
      expect(page.text).not.toContain('Gamma VPS');
      expect(page.text).toContain('<a href="/">All categories</a>');
      expect(page.text).toContain('<a href="/categories/vps_cloud">Clear filters</a>');
      expect(page.text).toContain('value="8"');
      const all = await call(server, 'GET', '/search?q=vps');
      expect(all.text).toContain('>4 plans<');

      for (const [query, message] of [
        ['min_ram_gb=lots', 'RAM (GB) at least “lots” is not a number.'],
        ['country=ZZ', 'Country “ZZ” is not a country code the directory knows'],
        ['min_ram_gb=8&amp;max_ram_gb=4', 'more than max_ram_gb'],
        [
          'sort=bogus',
          'Sort: “bogus” is not one of: price, price_desc, newest, name, name_desc, price_per_ram_gb, price_per_cpu_core, ' +
            'price_per_disk_gb, cpu_cores_asc, cpu_cores_desc, ram_gb_asc',
        ],
        ['sort=constructor_asc', 'Sort: “constructor_asc” is not one of: price,'],
        ['sort=__proto___desc', 'Sort: “__proto___desc” is not one of: price,'],
        ['country=DE&amp;country=NL', 'The country parameter is given more than once.'],
        ['max_price=cheap', 'Max. per month “cheap” is not a price'],
        ['min_ram_gb=%3Cscript%3E', 'RAM (GB) at least “&lt;script&gt;” is not a number.'],
      ]) {
        const bad = await call(server, 'GET', `/categories/vps_cloud?${query!.replace('&amp;', '&')}`);
        expect(bad.status, query).toBe(422);
        expect(bad.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(bad.text, query).toContain('role="alert"');
        expect(bad.text, query).toContain(message);
        expect(bad.text).not.toContain('<script>');
        expect(bad.text).not.toContain('Alpha VPS');
      }
      const search = await call(server, 'GET', '/search?q=vps&country=Atlantis');
      expect(search.status).toBe(422);
      expect(search.text).toContain('Country “Atlantis”');
    });

    it('shows a table sorted by a spec column, server-side, with sort links on the headers', async () => {
      const page = await call(server, 'GET', '/categories/vps_cloud?view=table&sort=ram_gb_desc');
      expect(page.status).toBe(200);
      const order = ['Gamma VPS', 'Beta VPS', 'Alpha VPS', 'Delta VPS'].map((name) =>
        page.text.indexOf(`>${name}</a>`),
      );
      expect(order.every((at) => at > 0)).toBe(true);
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(page.text).toContain('aria-sort="descending"');
      expect(page.text).toContain('href="/categories/vps_cloud?view=table&amp;sort=ram_gb_asc"');
      expect(page.text).toContain('<td>16 GB</td>');
      // On a phone the columns after the family's first two are left to the plan's page (class "extra").
      expect(page.text).toContain('<td class="extra">Unlimited</td>');
      expect(page.text).toContain('<form action="/compare" method="get"');
    });

    it('compares up to four plans as a page and as JSON, with unknown and too many ids answered', async () => {
      const json = await call(server, 'GET', `/api/v1/directory/compare?ids=${ids.alpha},${ids.gamma}`);
      expect(json.status).toBe(200);
      expect(json.body.products.map((p: { name: string }) => p.name)).toEqual(['Alpha VPS', 'Gamma VPS']);
      expect(json.body.rows.find((row: { key: string }) => row.key === 'ram_gb').values).toEqual(['4 GB', '16 GB']);
      expect(json.body.rows.find((row: { key: string }) => row.key === 'bandwidth_tb').values).toEqual([
        '20 TB',
        'Unlimited',
      ]);
      expect(json.body.rows.find((row: { key: string }) => row.key === 'port_mbps').values).toEqual(['1 Gbit/s', null]);
      expect(json.body.missing).toEqual([]);

      // Checkboxes send ids repeated.
      const repeated = await call(server, 'GET', `/api/v1/directory/compare?ids=${ids.beta}&ids=${ids.alpha}`);
      expect(repeated.body.products.map((p: { name: string }) => p.name)).toEqual(['Beta VPS', 'Alpha VPS']);

      const unknown = 'prd_01JD0000000000000000000000';
      const withUnknown = await call(server, 'GET', `/api/v1/directory/compare?ids=${ids.alpha},${unknown}`);
      expect(withUnknown.status).toBe(200);
      expect(withUnknown.body.missing).toEqual([unknown]);

      const five = [ids.alpha, ids.beta, ids.gamma, ids.delta, ids.creeper].join(',');
      for (const query of [`ids=${five}`, 'ids=', 'ids=not-an-id', '']) {
        const refused = await call(server, 'GET', `/api/v1/directory/compare?${query}`);
        expect(refused.status, query).toBe(422);
        expect(refused.headers.get('content-type')).toContain('application/problem+json');
      }

      const page = await call(server, 'GET', `/compare?ids=${ids.alpha}&ids=${ids.gamma}&ids=${unknown}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Alpha VPS');
      expect(page.text).toContain('Gamma VPS');
      expect(page.text).toContain('16 GB');
      expect(page.text).toContain('One plan is not listed any more');
      const tooMany = await call(server, 'GET', `/compare?ids=${five}`);
      expect(tooMany.status).toBe(422);
      expect(tooMany.text).toContain('At most 4 plans are compared at once');
      const empty = await call(server, 'GET', '/compare');
      expect(empty.status).toBe(200);
      expect(empty.text).toContain('Pick up to 4 plans');
    });

    it('escapes hostile spec keys, values, names and locations on the table, compare and product pages', async () => {
      for (const path of [
        `/compare?ids=${ids.hostile}`,
        `/products/${ids.hostile}`,
        '/categories/dedicated?view=table',
        '/search?q=orbit&view=table',
        '/search?q=orbit',
      ]) {
        const page = await call(server, 'GET', path);
        expect(page.status, path).toBe(200);
        expect(page.text, path).not.toMatch(/<script>k|<img src|<b>box|<b>64|<i>Berlin|<u>feat/);
        expect(page.text, path).toContain('Hostile &lt;b&gt;box&lt;/b&gt;');
      }
      expect((await call(server, 'GET', `/compare?ids=${ids.hostile}`)).text).toContain(
        '&lt;script&gt;k&lt;/script&gt;: &lt;img src=x onerror=alert(1)&gt;',
      );
      const json = await call(server, 'GET', `/api/v1/directory/products/${ids.hostile}`);
      expect(json.body.product.specs['<script>k</script>']).toBe('<img src=x onerror=alert(1)>');
      expect(json.body.product.comparable_specs).toEqual({ ram_gb: 64 });
    });

    if (store === 'postgres') {
      it('derives the values of an older version again at start', async () => {
        await server.sql(
          `UPDATE products SET spec_values = NULL, facets = '[]', search_extra = NULL, derived_version = 0`,
        );
        expect(names((await products('country=NL')).body)).toEqual([]);
        await server.restart();
        let found: string[] = [];
        for (let attempt = 0; attempt < 100 && found.length === 0; attempt++) {
          found = names((await products('country=NL')).body);
          if (found.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(found).toEqual(['Gamma VPS']);
        expect(
          (await call(server, 'GET', `/api/v1/directory/products/${ids.alpha}`)).body.product.comparable_specs,
        ).toMatchObject({ ram_gb: 4 });
        const stale = await server.sql<{ n: number }>(
          'SELECT count(*)::int AS n FROM products WHERE derived_version = 0',
        );
        expect(stale[0]!.n).toBe(0);
      });
    }
  });
}
