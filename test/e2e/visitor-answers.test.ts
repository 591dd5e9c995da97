// Answers that help a visitor on: one problem per bad parameter with the values it allows (the same words on the page
// and in problem+json), filter addresses without the empty fields a form sends, no control character on a page, a
// search that found nothing saying which words and offering the search without them, places by city and country, a
// comparison in the display currency with withdrawn plans named, and the demo's exchange rates on a first run.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { CLI, startServer, STORES, type TestServer } from '../support/server.js';

function seedDemo(server: TestServer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'seed-demo', '--json'], {
      env: { PATH: process.env.PATH ?? '', HOSTDIR_URL: server.url, ADMIN_TOKEN: server.adminToken },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A page's answer without following a redirect. */
async function unfollowed(
  server: TestServer,
  pathname: string,
): Promise<{ status: number; location: string | null; text: string }> {
  const response = await fetch(`${server.url}${pathname}`, { redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

/** Control characters, tab and line breaks aside (a description keeps its lines). */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

for (const store of STORES) {
  describe(`answers that help a visitor on (${store})`, () => {
    let server: TestServer;
    let francs: Onboarded;

    beforeAll(async () => {
      server = await startServer(store, { env: { SYNC_MAX_PER_WINDOW: '10' } });
      const seeded = await seedDemo(server);
      expect(seeded.code, seeded.stderr).toBe(0);
      expect(JSON.parse(seeded.stdout).rates).toEqual({ date: '2024-06-28', imported: true });
      // A provider priced in a currency the demo's rates do not cover: its plans are listed unconverted, with a notice.
      francs = await onboard(server, 'Franc Hosting', { default_currency: 'CHF' });
      const synced = await sync(server, francs.key, [
        product('ch-1', {
          name: 'Alpen VPS',
          currency: 'CHF',
          price: 7,
          pricing_tiers: null,
          datacenter_locations: ['Zürich', 'de-fra-1', 'Atlantis 1'],
        }),
        product('ch-2', { name: 'Alpen VPS Retired', currency: 'CHF', price: 9, pricing_tiers: null }),
      ]);
      expect(synced.status, synced.text).toBe(200);
    });

    afterAll(async () => {
      await server?.stop();
    });

    describe('a first run', () => {
      it("holds the ECB's rates of 2024-06-28 for the demo's currencies, and a second seed-demo leaves rates as they are", async () => {
        const rates = await admin(server, 'GET', '/rates');
        expect(
          rates.body.rates.map((rate: { currency: string; rate: number; date: string }) => [
            rate.currency,
            rate.rate,
            rate.date,
          ]),
        ).toEqual([
          ['GBP', 0.84638, '2024-06-28'],
          ['USD', 1.0705, '2024-06-28'],
        ]);
        const again = await seedDemo(server);
        expect(again.code, again.stderr).toBe(0);
        expect(JSON.parse(again.stdout).rates).toEqual({ date: '2024-06-28', imported: false });
      });

      it('sorts dollars among euros by their converted price', async () => {
        const listed = await call(server, 'GET', '/api/v1/directory/products?category=vps_cloud&limit=3');
        expect(
          listed.body.products.map((p: { name: string; base_monthly_price: number | null }) => [
            p.name,
            p.base_monthly_price,
          ]),
        ).toEqual([
          ['Harbor VM Nano', 3.736572],
          ['Cloud Server CX11', 3.79],
          ['Harbor VM Micro', 5.604858],
        ]);
      });
    });

    describe('a bad query parameter', () => {
      it('is one problem naming the values it allows, not one per value the validator tried', async () => {
        const answer = await call(server, 'GET', '/api/v1/directory/products?sort=cheapest');
        expect(answer.status).toBe(422);
        expect(answer.headers.get('content-type')).toContain('application/problem+json');
        expect(answer.body.errors).toEqual([
          {
            parameter: 'sort',
            code: 'enum',
            detail:
              '“cheapest” is not one of: price, newest, name, cpu_cores, ram_gb, disk_gb, bandwidth_tb, port_mbps, ipv4, ' +
              'player_slots, storage_gb, websites, email_accounts, price_per_ram_gb, price_per_cpu_core, price_per_disk_gb',
          },
        ]);
        expect(answer.body.detail).toBe(`sort: ${answer.body.errors[0].detail}`);
      });

      it('is named with every other bad parameter of the same query, each once', async () => {
        const answer = await call(
          server,
          'GET',
          '/api/v1/directory/products?sort=cheapest&order=up&disk_type=floppy&limit=0',
        );
        expect(answer.status).toBe(422);
        expect(
          answer.body.errors.map((error: { parameter: string; code: string }) => [error.parameter, error.code]).sort(),
        ).toEqual([
          ['disk_type', 'enum'],
          ['limit', 'minimum'],
          ['order', 'enum'],
          ['sort', 'enum'],
        ]);
        expect(answer.body.errors.find((error: { parameter: string }) => error.parameter === 'order').detail).toBe(
          '“up” is not one of: asc, desc',
        );
      });

      it('reads the same on the page as in problem+json', async () => {
        const api = await call(server, 'GET', '/api/v1/directory/products?disk_type=floppy');
        const page = await call(server, 'GET', '/search?q=vps&disk_type=floppy');
        expect(page.status).toBe(422);
        expect(api.body.errors[0].detail).toBe('“floppy” is not one of: nvme, ssd, hdd');
        expect(page.text).toContain(`Disk type: ${api.body.errors[0].detail}.`);
        const sorted = await call(server, 'GET', '/categories/vps_cloud?sort=cheapest');
        expect(sorted.status).toBe(422);
        expect(sorted.text).toContain(
          'Sort: “cheapest” is not one of: price, price_desc, newest, name, name_desc, price_per_ram_gb, ' +
            'price_per_cpu_core, price_per_disk_gb, cpu_cores_asc, cpu_cores_desc,',
        );
      });
    });

    describe('a filter address', () => {
      it('with the empty and default fields a form sends is redirected to the one with only the filters set', async () => {
        const cases: [string, string][] = [
          [
            '/categories/vps_cloud?q=&location=&country=&feature=&disk_type=&max_price=5&currency=&display_currency=EUR&period=month&price_dropped_since=&sort=price&view=&min_ram_gb=&max_ram_gb=',
            '/categories/vps_cloud?max_price=5',
          ],
          ['/search?q=nvme&category=&sort=price&view=cards', '/search?q=nvme'],
          ['/search?q=', '/search'],
          [
            '/categories/vps_cloud?location=Helsinki&sort=price_desc&view=',
            '/categories/vps_cloud?location=Helsinki&sort=price_desc',
          ],
          ['/hosts/harbor-cloud?display_currency=&period=month', '/hosts/harbor-cloud'],
          // A currency filter picks its own display currency: asking for EUR beside it is a choice, kept.
          ['/search?currency=USD&display_currency=EUR&q=', '/search?currency=USD&display_currency=EUR'],
        ];
        for (const [asked, canonical] of cases) {
          const answer = await unfollowed(server, asked);
          expect(answer.status, asked).toBe(302);
          expect(answer.location, asked).toBe(canonical);
          const landed = await unfollowed(server, canonical);
          expect(landed.status, canonical).toBe(200);
        }
      });

      it('of a product or a comparison is redirected too; an address that is already canonical is answered', async () => {
        const listed = await call(server, 'GET', '/api/v1/directory/products?category=vps_cloud&limit=2');
        const [first, second] = listed.body.products.map((p: { id: string }) => p.id);
        expect((await unfollowed(server, `/products/${first}?display_currency=`)).location).toBe(`/products/${first}`);
        expect((await unfollowed(server, `/compare?ids=${first}&ids=${second}&display_currency=EUR`)).location).toBe(
          `/compare?ids=${first}&ids=${second}`,
        );
        for (const pathname of [
          `/products/${first}?display_currency=USD`,
          `/compare?ids=${first}&ids=${second}&display_currency=GBP`,
          '/categories/vps_cloud?sort=price_desc',
        ]) {
          expect((await unfollowed(server, pathname)).status, pathname).toBe(200);
        }
      });
    });

    describe('control characters', () => {
      it('never reach a page, whatever the query holds', async () => {
        for (const pathname of [
          '/search?q=nvme%00%1b',
          '/search?q=a%00b%07c&view=table',
          '/categories/vps_cloud?feature=%00NVMe',
          '/search?q=x&sort=%00',
          `/compare?ids=%00`,
        ]) {
          const answer = await call(server, 'GET', pathname);
          expect(answer.status, pathname).toBeLessThan(500);
          expect(CONTROL.test(answer.text), pathname).toBe(false);
        }
        // A query of control characters only is no query.
        const nul = await unfollowed(server, '/search?q=%00');
        expect([nul.status, nul.location]).toEqual([302, '/search']);
        const words = await call(server, 'GET', '/search?q=nvme%00cloud');
        expect(words.text).toContain('value="nvme cloud"');
        expect(words.text).toContain('Cloud Server CX11');
      });
    });

    describe('a search that found nothing', () => {
      it('names the word nothing matches, offers the search without it, and shows neither feed nor notice', async () => {
        // With plans in view, the list says which currency it could not convert.
        const listed = await call(server, 'GET', '/categories/vps_cloud');
        expect(listed.text).toContain('Not converted (no exchange rate): CHF');
        expect(listed.text).toContain('feed.atom');

        const one = await call(server, 'GET', '/search?q=cheap');
        expect(one.status).toBe(200);
        expect(one.text).toContain('No plan here matches “cheap”. <a href="/search">Search without “cheap”</a>.');
        const two = await call(server, 'GET', '/categories/vps_cloud?q=cloud+cheap');
        expect(two.text).toContain(
          'No plan here matches “cheap”. <a href="/categories/vps_cloud?q=cloud">Search for “cloud” instead</a>.',
        );
        for (const empty of [one, two]) {
          expect(empty.text).not.toContain('feed.atom');
          expect(empty.text).not.toContain('export.csv');
          expect(empty.text).not.toContain('class="notice"');
          expect(empty.text).not.toContain('Try fewer filters');
        }
      });

      it('says the filters leave nothing, with the way to clear them, when every word matches', async () => {
        const answer = await call(server, 'GET', '/categories/vps_cloud?q=cloud&max_price=0.5');
        expect(answer.text).toContain(
          'No plan here matches all of these filters. <a href="/categories/vps_cloud?q=cloud">Clear the filters</a>',
        );
        expect(answer.text).not.toContain('feed.atom');
      });
    });

    describe('places', () => {
      it('are named by city and country on cards, the product page, the filter and the comparison', async () => {
        const listed = await call(server, 'GET', `/api/v1/directory/hosts/${francs.slug}`);
        const alpen = listed.body.products.find((p: { name: string }) => p.name === 'Alpen VPS');
        const card = await call(server, 'GET', `/hosts/${francs.slug}`);
        expect(card.text).toContain('<li>Zurich, Switzerland</li><li>Frankfurt, Germany</li><li>Atlantis 1</li>');
        const page = await call(server, 'GET', `/products/${alpen.id}`);
        expect(page.text).toContain('<li>Zurich, Switzerland <span class="muted">(listed as “Zürich”)</span></li>');
        const category = await call(server, 'GET', '/categories/vps_cloud');
        expect(category.text).toContain('<option value="Helsinki">Helsinki, Finland</option>');
        const compared = await call(server, 'GET', `/api/v1/directory/compare?ids=${alpen.id}`);
        expect(compared.body.rows.find((row: { key: string }) => row.key === 'locations').values).toEqual([
          'Zurich, Switzerland; Frankfurt, Germany; Atlantis 1',
        ]);
      });
    });

    describe('a comparison', () => {
      it('answers in the display currency asked for, each plan with its own price beside, the best of each row marked', async () => {
        const listed = await call(server, 'GET', '/api/v1/directory/products?category=vps_cloud&limit=2');
        const [nano, cx11] = listed.body.products as { id: string; name: string }[];
        const answer = await call(
          server,
          'GET',
          `/api/v1/directory/compare?ids=${nano!.id},${cx11!.id}&display_currency=GBP`,
        );
        expect(answer.status).toBe(200);
        expect(answer.body.display_currency).toBe('GBP');
        const row = (key: string) => answer.body.rows.find((r: { key: string }) => r.key === key);
        // $4.00 and €3.79 in pounds, at the ECB's 1.0705 and 0.84638.
        expect(row('monthly_price')).toEqual({
          key: 'monthly_price',
          label: 'Per month',
          values: ['£3.16', '£3.21'],
          native: ['$4.00', '€3.79'],
          better: 'lower',
          best: [0],
        });
        expect(row('yearly_price').values).toEqual(['£37.95', '£38.49']);
        expect(row('first_year_cost').best).toEqual([0]);
        expect(row('ram_gb')).toMatchObject({ values: ['0.5 GB', '2 GB'], better: 'higher', best: [1] });
        const refused = await call(server, 'GET', `/api/v1/directory/compare?ids=${nano!.id}&display_currency=JPY`);
        expect(refused.status).toBe(422);
      });

      it('names a withdrawn plan by its name, on the page and in JSON', async () => {
        const listed = await call(server, 'GET', `/api/v1/directory/hosts/${francs.slug}`);
        const retired = listed.body.products.find((p: { name: string }) => p.name === 'Alpen VPS Retired');
        const alpen = listed.body.products.find((p: { name: string }) => p.name === 'Alpen VPS');
        const withdrawn = await sync(server, francs.key, [
          product('ch-1', {
            name: 'Alpen VPS',
            currency: 'CHF',
            price: 7,
            pricing_tiers: null,
            datacenter_locations: ['Zürich', 'de-fra-1', 'Atlantis 1'],
          }),
        ]);
        expect(withdrawn.status, withdrawn.text).toBe(200);
        const unknown = 'prd_01JD0000000000000000000000';
        const json = await call(server, 'GET', `/api/v1/directory/compare?ids=${alpen.id},${retired.id},${unknown}`);
        expect(json.body.missing).toEqual([retired.id, unknown]);
        expect(json.body.unlisted).toEqual([
          { id: retired.id, name: 'Alpen VPS Retired', host: 'Franc Hosting' },
          { id: unknown, name: null, host: null },
        ]);
        const page = await call(server, 'GET', `/compare?ids=${alpen.id},${retired.id}`);
        expect(page.text).toContain('One plan is not listed any more: Alpen VPS Retired by Franc Hosting.');
        expect(page.text).not.toContain(retired.id);
      });
    });
  });
}
