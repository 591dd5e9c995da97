// Provider profiles and order links, exchange rates and prices compared across currencies, and the true cost: over
// HTTP on both stores, through the admin API, the provider's key, the command line, the JSON API and the pages.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync, type Onboarded } from '../support/api.js';
import {
  CLI,
  startInProcessServer,
  startServer,
  STORES,
  type ServerUnderTest,
  type TestServer,
} from '../support/server.js';
import { until } from '../support/until.js';

const TEMPLATE = 'https://billing.acme.example.com/cart.php?a=add&pid={external_id}';

function ecbXml(date: string, rates: Record<string, string>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
\t\t<Cube time='${date}'>
${Object.entries(rates)
  .map(([currency, rate]) => `\t\t\t<Cube currency='${currency}' rate='${rate}'/>`)
  .join('\n')}
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>`;
}

function hostdir(
  server: TestServer,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', HOSTDIR_URL: server.url, ADMIN_TOKEN: server.adminToken, ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function page(server: TestServer, pathAndQuery: string): Promise<string> {
  const response = await fetch(`${server.url}${pathAndQuery}`);
  expect(response.status, pathAndQuery).toBe(200);
  return response.text();
}

/** The names of the cards on a list page, in order. */
function cardNames(html: string): string[] {
  return [...html.matchAll(/<li class="card">\s*<h2><a href="[^"]*">([^<]*)<\/a><\/h2>/g)].map((match) => match[1]!);
}

describe.each(STORES)('profiles, order links and currencies (%s store)', (store) => {
  let server: TestServer;
  let acme: Onboarded;
  let other: Onboarded;
  let dir: string;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    server = await startServer(store, { env: { DISPLAY_CURRENCY: 'EUR' } });
    dir = await mkdtemp(path.join(tmpdir(), 'hostdir-rates-'));
    acme = await onboard(server, 'Acme Hosting', { default_currency: 'GBP' });
    other = await onboard(server, 'Other Host', { default_currency: 'USD' });
    const products = [
      product('vps s/1&x=<y>', {
        name: 'Pound plan',
        price: 10,
        currency: 'GBP',
        setup_fee: 5,
        pricing_tiers: [{ period: 'Monthly', price: 10 }],
        category: 'vps_cloud',
      }),
      product('usd', {
        name: 'Dollar plan',
        price: 11,
        currency: 'USD',
        setup_fee: 0,
        pricing_tiers: null,
        category: 'vps_cloud',
      }),
      product('eur', {
        name: 'Euro plan',
        price: 10.5,
        currency: 'EUR',
        setup_fee: null,
        pricing_tiers: null,
        category: 'vps_cloud',
      }),
      product('yen', {
        name: 'Yen plan',
        price: 100,
        currency: 'JPY',
        setup_fee: null,
        pricing_tiers: null,
        category: 'vps_cloud',
      }),
      product('yearly', {
        name: 'Yearly plan',
        price: null,
        currency: 'EUR',
        setup_fee: 0,
        pricing_tiers: [{ period: 'Annually', price: 96 }],
        category: 'vps_cloud',
      }),
    ];
    const answer = await sync(server, acme.key, products);
    expect(answer.status).toBe(200);
    for (const entry of answer.body.products as { external_id: string; id: string }[])
      ids.set(entry.external_id, entry.id);
  });

  afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  describe('the profile', () => {
    it('is set by the operator and shown on the host page and in the public JSON', async () => {
      const answer = await admin(server, 'PATCH', `/hosts/${acme.slug}`, {
        website: 'https://www.acme.example.com/',
        description: 'Small & friendly <hosting>',
        country: 'de',
        order_url_template: TEMPLATE,
      });
      expect(answer.status).toBe(200);
      expect(answer.body.host).toMatchObject({
        website: 'https://www.acme.example.com/',
        country: 'DE',
        order_url_template: TEMPLATE,
      });
      const host = await call(server, 'GET', `/api/v1/directory/hosts/${acme.slug}`);
      expect(host.body.host).toMatchObject({
        website: 'https://www.acme.example.com/',
        description: 'Small & friendly <hosting>',
        country: 'DE',
      });
      const html = await page(server, `/hosts/${acme.slug}`);
      expect(html).toContain('<a href="https://www.acme.example.com/" rel="nofollow noopener">acme.example.com</a>');
      expect(html).toContain('Small &amp; friendly &lt;hosting&gt;');
      expect(html).toContain('Based in Germany');
    });

    it.each([
      ['a javascript: link', { website: 'javascript:alert(1)' }, '/website'],
      ['plain http', { website: 'http://acme.example.com/' }, '/website'],
      [
        'credentials in the URL',
        { order_url_template: 'https://user:pw@billing.acme.example.com/?pid={external_id}' },
        '/order_url_template',
      ],
      [
        'a template without {external_id}',
        { order_url_template: 'https://billing.acme.example.com/cart.php' },
        '/order_url_template',
      ],
      ['an unknown country', { country: 'XX' }, '/country'],
      ['an over-long description', { description: 'x'.repeat(501) }, '/description'],
      ['an over-long website', { website: `https://acme.example.com/${'a'.repeat(500)}` }, '/website'],
      ['an unknown field', { logo: 'https://acme.example.com/logo.png' }, '/logo'],
    ])(
      'refuses %s with 422 from the operator and the provider, and changes nothing',
      async (_name, change, pointer) => {
        const before = (await admin(server, 'GET', `/hosts/${acme.slug}`)).body.host;
        for (const answer of [
          await admin(server, 'PATCH', `/hosts/${acme.slug}`, change),
          await call(server, 'PATCH', '/api/v1/profile', { token: acme.key, json: change }),
        ]) {
          expect(answer.status).toBe(422);
          expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(answer.body.code).toBe('VALIDATION_FAILED');
          expect(answer.body.errors.map((error: { pointer: string }) => error.pointer)).toContain(pointer);
        }
        const after = (await admin(server, 'GET', `/hosts/${acme.slug}`)).body.host;
        expect(after).toEqual(before);
      },
    );

    it('is read and changed by the provider with its key, never cached, and only its own', async () => {
      const mine = await call(server, 'GET', '/api/v1/profile', { token: other.key });
      expect(mine.status).toBe(200);
      expect(mine.headers.get('cache-control')).toBe('no-store');
      expect(mine.body.profile).toEqual({
        slug: other.slug,
        name: 'Other Host',
        website: null,
        description: null,
        country: null,
        order_url_template: null,
      });
      const changed = await call(server, 'PATCH', '/api/v1/profile', {
        token: other.key,
        json: { website: 'https://other.example.org', country: 'us' },
      });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('cache-control')).toBe('no-store');
      expect(changed.body.profile).toMatchObject({ website: 'https://other.example.org', country: 'US' });
      // Acme's profile is untouched by another provider's change.
      expect((await call(server, 'GET', '/api/v1/profile', { token: acme.key })).body.profile.website).toBe(
        'https://www.acme.example.com/',
      );
      const cleared = await call(server, 'PATCH', '/api/v1/profile', { token: other.key, json: { website: null } });
      expect(cleared.body.profile).toMatchObject({ website: null, country: 'US' });
      expect((await call(server, 'GET', '/api/v1/profile')).status).toBe(401);
    });

    it('is set and cleared from the command line, by the operator and by the provider', async () => {
      const set = await hostdir(server, ['hosts', 'update', other.slug, '--description', 'From the CLI', '--json']);
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(set.stdout).host.description).toBe('From the CLI');
      const refused = await hostdir(server, ['profile', 'set', '--website', 'javascript:alert(1)'], {
        HOSTDIR_API_KEY: other.key,
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('/website');
      const provider = await hostdir(
        server,
        [
          'profile',
          'set',
          '--order-url-template',
          'https://other.example.org/order/{external_id}',
          '--clear',
          'description',
        ],
        { HOSTDIR_API_KEY: other.key },
      );
      expect(provider.code, provider.stderr).toBe(0);
      const shown = await hostdir(server, ['profile', 'show', '--json'], { HOSTDIR_API_KEY: other.key });
      expect(JSON.parse(shown.stdout).profile).toMatchObject({
        description: null,
        order_url_template: 'https://other.example.org/order/{external_id}',
      });
      expect(shown.stdout).not.toContain(other.key);
    });

    it("links a product page to the provider's order page, its id URL-encoded", async () => {
      const id = ids.get('vps s/1&x=<y>')!;
      const expected = 'https://billing.acme.example.com/cart.php?a=add&pid=vps%20s%2F1%26x%3D%3Cy%3E';
      expect((await call(server, 'GET', `/api/v1/directory/products/${id}`)).body.product.order_url).toBe(expected);
      const html = await page(server, `/products/${id}`);
      expect(html).toContain(
        `<a class="button" href="${expected.replaceAll('&', '&amp;')}" rel="nofollow noopener">Order at Acme Hosting</a>`,
      );
      // Without a template, no link.
      await admin(server, 'PATCH', `/hosts/${acme.slug}`, { order_url_template: null });
      expect(await page(server, `/products/${id}`)).not.toContain('Order at');
      expect((await call(server, 'GET', `/api/v1/directory/products/${id}`)).body.product.order_url).toBeNull();
      await admin(server, 'PATCH', `/hosts/${acme.slug}`, { order_url_template: TEMPLATE });
    });
  });

  describe('currencies', () => {
    it('lists products without rates unconverted, after the others, and names their currencies', async () => {
      const answer = await call(server, 'GET', '/api/v1/directory/products?category=vps_cloud&host=acme-hosting');
      expect(answer.status).toBe(200);
      // Only EUR is comparable before any rate is known.
      expect(answer.body.products.map((p: { name: string }) => p.name)).toEqual([
        'Yearly plan',
        'Euro plan',
        ...['Pound plan', 'Dollar plan', 'Yen plan'].sort((a, b) =>
          ids.get(externalOf(a))!.localeCompare(ids.get(externalOf(b))!),
        ),
      ]);
      expect(answer.body.unconverted_currencies).toEqual(['GBP', 'JPY', 'USD']);
    });

    it('imports the ECB file from the command line, and a refused file changes nothing', async () => {
      const broken = path.join(dir, 'broken.xml');
      await writeFile(broken, ecbXml('2026-11-20', { USD: '1.1000', GBP: 'abc' }));
      const refused = await hostdir(server, ['rates', 'import', broken]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("Cube[currency='GBP']");
      expect((await admin(server, 'GET', '/rates')).body.rates).toEqual([]);

      const file = path.join(dir, 'eurofxref-daily.xml');
      await writeFile(file, ecbXml('2026-11-20', { USD: '1.1000', JPY: '160.00', GBP: '0.8000', CHF: '0.9500' }));
      const imported = await hostdir(server, ['rates', 'import', file, '--json']);
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout).import).toMatchObject({ days: 1, rates_written: 4, date: '2026-11-20' });
      const listed = await admin(server, 'GET', '/rates');
      expect(
        listed.body.rates.map((rate: { currency: string; rate: number; date: string }) => [
          rate.currency,
          rate.rate,
          rate.date,
        ]),
      ).toEqual([
        ['CHF', 0.95, '2026-11-20'],
        ['GBP', 0.8, '2026-11-20'],
        ['JPY', 160, '2026-11-20'],
        ['USD', 1.1, '2026-11-20'],
      ]);
      expect(listed.body.rates[0].source).toBe('ECB euro foreign exchange reference rates');
    });

    it('sorts and filters across currencies by the converted price, and the page agrees with the API', async () => {
      // GBP 10 = 12.50 EUR (+ nothing), USD 11 = 10 EUR, EUR 10.50, JPY 100 = 0.625 EUR, yearly 96 EUR = 8 EUR a month.
      const answer = await call(server, 'GET', '/api/v1/directory/products?host=acme-hosting&display_currency=USD');
      const names = answer.body.products.map((p: { name: string }) => p.name);
      expect(names).toEqual(['Yen plan', 'Yearly plan', 'Dollar plan', 'Euro plan', 'Pound plan']);
      expect(answer.body.display_currency).toBe('USD');
      expect(answer.body.unconverted_currencies).toEqual([]);
      const pound = answer.body.products.find((p: { name: string }) => p.name === 'Pound plan');
      expect(pound).toMatchObject({ currency: 'GBP', monthly_price: 10, base_monthly_price: 12.5 });
      expect(pound.cost).toMatchObject({ monthly: 10, setup_fee: 5, first_term: { months: 12, cost: 125 } });
      expect(pound.converted).toEqual({
        currency: 'USD',
        monthly: 13.75,
        yearly: 165,
        setup_fee: 6.88,
        first_term_cost: 171.88,
        rate_date: '2026-11-20',
      });
      expect(cardNames(await page(server, `/hosts/${acme.slug}?display_currency=USD`))).toEqual(names);

      // max_price is in the display currency: 11.55 USD = 10.50 EUR.
      const cheap = await call(
        server,
        'GET',
        '/api/v1/directory/products?host=acme-hosting&display_currency=USD&max_price=11.55',
      );
      expect(cheap.body.products.map((p: { name: string }) => p.name)).toEqual([
        'Yen plan',
        'Yearly plan',
        'Dollar plan',
        'Euro plan',
      ]);
      const cheapPage = await page(server, '/categories/vps_cloud?display_currency=USD&max_price=11.55');
      expect(cardNames(cheapPage).filter((name) => names.includes(name))).toEqual([
        'Yen plan',
        'Yearly plan',
        'Dollar plan',
        'Euro plan',
      ]);
      expect(cheapPage).toContain('Max. per month (USD)');

      // currency= keeps its meaning: only products priced in it, max_price then as sent.
      const dollars = await call(
        server,
        'GET',
        '/api/v1/directory/products?host=acme-hosting&currency=usd&max_price=11',
      );
      expect(dollars.body.products.map((p: { name: string }) => p.name)).toEqual(['Dollar plan']);
      expect(dollars.body.display_currency).toBe('USD');
    });

    it('shows the native price and "≈" the converted one with the rates\' date, per year on request', async () => {
      const html = await page(server, `/categories/vps_cloud?display_currency=USD`);
      expect(html).toContain('£10.00</span> <span class="muted">per month</span>');
      expect(html).toContain(
        '≈ $13.75 per month <span class="muted">(rates of <time datetime="2026-11-20">2026-11-20</time>)</span>',
      );
      expect(html).toContain('Setup £5.00 · First year: £125.00');
      expect(html).toContain('<option value="USD" selected>USD</option>');
      // The yearly-only plan is sold per year, and its monthly figure says it is an equivalent.
      expect(html).toContain('€96.00</span> <span class="muted">per year</span>');
      expect(html).toContain('€8.00 per month equivalent');
      expect(html).not.toContain('€96.00</span> <span class="muted">per month');
      const yearly = await page(server, `/categories/vps_cloud?display_currency=USD&period=year`);
      expect(yearly).toContain('£120.00</span> <span class="muted">per year (12 × monthly)</span>');
      expect(yearly).toContain('≈ $165.00 per year');
      // The product page carries the true cost.
      const product = await page(server, `/products/${ids.get('yearly')}?display_currency=USD`);
      expect(product).toContain('<dt>Per month (equivalent)</dt><dd>€8.00 <span class="muted">(≈ $8.80)</span></dd>');
      expect(product).toContain('<dt>First year, setup included</dt><dd>€96.00');
    });

    it('refuses a display currency without a rate in the API, and says so on the page', async () => {
      const refused = await call(server, 'GET', '/api/v1/directory/products?display_currency=SEK');
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual([
        expect.objectContaining({ parameter: 'display_currency', code: 'no_rate' }),
      ]);
      // A search that finds nothing reads the rates all the same (they otherwise come with the rows).
      const none = '/api/v1/directory/products?host=acme-hosting&q=zzzzunfound';
      expect((await call(server, 'GET', `${none}&display_currency=SEK`)).status).toBe(422);
      const empty = await call(server, 'GET', `${none}&display_currency=USD`);
      expect(empty.status).toBe(200);
      expect(empty.body).toMatchObject({ products: [], display_currency: 'USD' });
      const html = await page(server, '/categories/vps_cloud?display_currency=SEK');
      expect(html).toContain('There is no exchange rate for SEK: prices are shown in EUR.');
    });

    it('orders again when a rate changes, though no sync rewrote the products', async () => {
      const before = await call(server, 'GET', '/api/v1/directory/products?host=acme-hosting');
      expect(before.body.products.at(-1).name).toBe('Pound plan');
      // The pound falls: 10 GBP = 0.50 EUR.
      const answer = await admin(server, 'POST', '/rates?source=test', { date: '2026-11-21', rates: { GBP: 20 } });
      expect(answer.status).toBe(200);
      expect(answer.body.import).toMatchObject({ days: 1, rates_written: 1, products_updated: 1, date: '2026-11-21' });
      const after = await call(server, 'GET', '/api/v1/directory/products?host=acme-hosting');
      expect(after.body.products.map((p: { name: string }) => p.name)).toEqual([
        'Pound plan',
        'Yen plan',
        'Yearly plan',
        'Dollar plan',
        'Euro plan',
      ]);
      expect(after.body.products[0]).toMatchObject({
        base_monthly_price: 0.5,
        converted: { currency: 'EUR', monthly: 0.5, rate_date: '2026-11-21' },
      });
      // An older day imported later does not replace the newer rate.
      const older = await admin(server, 'POST', '/rates', { date: '2026-11-19', rates: { GBP: 0.5 } });
      expect(older.body.import.products_updated).toBe(0);
      expect((await call(server, 'GET', '/api/v1/directory/products?host=acme-hosting')).body.products[0].name).toBe(
        'Pound plan',
      );
      // A re-sent, unchanged catalogue keeps the converted prices.
      const resync = await call(server, 'GET', `/api/v1/directory/products/${ids.get('vps s/1&x=<y>')}`);
      expect(resync.body.product.base_monthly_price).toBe(0.5);
    });

    it('refuses a broken rates body in the admin API with problem+json, and changes nothing', async () => {
      const before = (await admin(server, 'GET', '/rates')).body;
      const answer = await call(server, 'POST', '/admin/v1/rates', {
        token: server.adminToken,
        body: '<gesmes:Envelope><Cube><Cube time="2026-11-22"><Cube currency="USD" rate="-1"/></Cube></Cube></gesmes:Envelope>',
        headers: { 'content-type': 'application/xml' },
      });
      expect(answer.status).toBe(422);
      expect(answer.body.errors[0]).toMatchObject({ code: 'rate' });
      expect((await admin(server, 'GET', '/rates')).body).toEqual(before);
    });
  });

  function externalOf(name: string): string {
    return { 'Pound plan': 'vps s/1&x=<y>', 'Dollar plan': 'usd', 'Yen plan': 'yen' }[name]!;
  }
});

describe.each(STORES)('RATES_URL (%s store)', (store) => {
  let server: ServerUnderTest;
  let rates: Server;
  let served = ecbXml('2026-11-20', { USD: '1.2000' });
  let requests = 0;

  beforeAll(async () => {
    rates = createServer((_request, response) => {
      requests += 1;
      response.writeHead(200, { 'content-type': 'text/xml' }).end(served);
    });
    await new Promise<void>((resolve) => rates.listen(0, '127.0.0.1', resolve));
    const { port } = rates.address() as { port: number };
    // Fetched every second instead of every RATES_REFRESH_SECONDS (a day), so that the test sees the next fetch.
    server = await startInProcessServer(store, {
      env: { RATES_URL: `http://127.0.0.1:${port}/stats/eurofxref/eurofxref-daily.xml?x=1` },
      config: { ratesRefreshSeconds: 1 },
    });
  });

  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => rates?.close(resolve));
  });

  it('fetches the rates at start and again every RATES_REFRESH_SECONDS, converting the products', async () => {
    const host = await onboard(server, 'Dollar Host', { default_currency: 'USD' });
    await until(async () => (await admin(server, 'GET', '/rates')).body.rates.length === 1, 30_000, 'the first fetch');
    const first = (await admin(server, 'GET', '/rates')).body.rates[0];
    expect(first).toMatchObject({ currency: 'USD', rate: 1.2, date: '2026-11-20' });
    expect(first.source).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/stats\/eurofxref\/eurofxref-daily\.xml$/);
    expect(
      (await sync(server, host.key, [product('a', { price: 12, currency: 'USD', pricing_tiers: null })])).status,
    ).toBe(200);
    const listed = await call(server, 'GET', '/api/v1/directory/products');
    expect(listed.body.products[0].base_monthly_price).toBe(10);

    served = ecbXml('2026-11-21', { USD: '1.5000' });
    await until(
      async () => (await call(server, 'GET', '/api/v1/directory/products')).body.products[0].base_monthly_price === 8,
      30_000,
      'the next fetch',
    );
    expect(requests).toBeGreaterThanOrEqual(2);
    expect(server.output()).toContain('exchange rates of 2026-11-21 fetched');
  });
});
