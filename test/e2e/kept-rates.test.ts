// Each server process keeps the rates it prices pages at, and every search reads the rates' version beside its rows
// (src/store/rates.ts, and pricedSearch in src/store/directory/priced-search.ts), as every product's statement does
// (findPricedProduct): a rates import through another process shows on the very next page, a display currency is
// refused only on rates read afresh, and a currency a sync brings without a rate is named as soon as a page shows one
// of its products.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';

describe('rates kept per process, checked by every search (PostgreSQL store, two processes)', () => {
  let reader: TestServer;
  let writer: TestServer;
  let host: Onboarded;
  const listing = (query = '') => call(reader, 'GET', `/api/v1/directory/products?host=${host.slug}${query}`);
  const names = (body: { products: { name: string }[] }) => body.products.map((p) => p.name);

  beforeAll(async () => {
    reader = await startServer('postgres', { env: { SYNC_MAX_PER_WINDOW: '10' } });
    writer = await startServer('postgres', { databaseUrl: reader.databaseUrl!, env: { SYNC_MAX_PER_WINDOW: '10' } });
    host = await onboard(reader, 'Kept Rates Hosting');
    const synced = await sync(reader, host.key, [
      product('pound', { name: 'Pound plan', price: 10, currency: 'GBP', pricing_tiers: null }),
      product('euro', { name: 'Euro plan', price: 12, currency: 'EUR', pricing_tiers: null }),
    ]);
    expect(synced.status).toBe(200);
  });
  afterAll(async () => {
    await writer?.stop();
    await reader?.stop();
  });

  it('prices the next page at rates another process imported, and refuses a currency only on fresh rates', async () => {
    const before = await listing();
    expect(before.status).toBe(200);
    expect(before.body.unconverted_currencies).toEqual(['GBP']);
    expect(before.body.products.find((p: { name: string }) => p.name === 'Pound plan').converted).toBeNull();
    expect((await listing('&display_currency=GBP')).status).toBe(422);

    const imported = await admin(writer, 'POST', '/rates', { date: '2026-11-20', rates: { GBP: 0.8 } });
    expect(imported.status).toBe(200);

    // 9.70 GBP = 12.125 EUR: the euro plan (12 EUR) is in, the pound plan (10 GBP = 12.50 EUR) is not.
    const limited = await listing('&display_currency=GBP&max_price=9.7');
    expect(limited.status, JSON.stringify(limited.body)).toBe(200);
    expect(names(limited.body)).toEqual(['Euro plan']);
    const after = await listing('&display_currency=GBP');
    expect(after.body.unconverted_currencies).toEqual([]);
    expect(after.body.products.find((p: { name: string }) => p.name === 'Pound plan').converted).toMatchObject({
      currency: 'GBP',
      monthly: 10,
      rate_date: '2026-11-20',
    });
    const html = await (await fetch(`${reader.url}/hosts/${host.slug}?display_currency=GBP`)).text();
    expect(html).toContain('(rates of <time datetime="2026-11-20">2026-11-20</time>)');
    expect(html).not.toContain('Not converted');

    // The pound halves: 10 GBP = 6.25 EUR, first by price at once, converted at the new day's rate.
    expect((await admin(writer, 'POST', '/rates', { date: '2026-11-21', rates: { GBP: 1.6 } })).status).toBe(200);
    const cheaper = await listing();
    expect(names(cheaper.body)).toEqual(['Pound plan', 'Euro plan']);
    expect(cheaper.body.products[0].converted).toMatchObject({
      currency: 'EUR',
      monthly: 6.25,
      rate_date: '2026-11-21',
    });
  });

  it('names a currency without a rate as soon as a page shows one of its products', async () => {
    expect((await listing()).body.unconverted_currencies).toEqual([]);
    const synced = await sync(writer, host.key, [
      product('pound', { name: 'Pound plan', price: 10, currency: 'GBP', pricing_tiers: null }),
      product('euro', { name: 'Euro plan', price: 12, currency: 'EUR', pricing_tiers: null }),
      product('yen', { name: 'Yen plan', price: 900, currency: 'JPY', pricing_tiers: null }),
    ]);
    expect(synced.status).toBe(200);
    const answer = await listing();
    expect(names(answer.body)).toEqual(['Pound plan', 'Euro plan', 'Yen plan']);
    expect(answer.body.unconverted_currencies).toEqual(['JPY']);
    const html = await (await fetch(`${reader.url}/hosts/${host.slug}`)).text();
    expect(html).toContain('JPY');
    expect(html).toMatch(/Not converted[^<]*JPY/);
  });

  it("prices a product's page and answers at rates another process imported, at once", async () => {
    const euro = (await listing()).body.products.find((p: { name: string }) => p.name === 'Euro plan');
    const answer = (query: string) => call(reader, 'GET', `/api/v1/directory/products/${euro.id}${query}`);
    // The reader keeps the rates it read: no rate for CHF yet, so the display currency is refused.
    expect((await answer('?display_currency=CHF')).status).toBe(422);
    expect((await answer('/alternatives?display_currency=CHF')).status).toBe(422);

    expect((await admin(writer, 'POST', '/rates', { date: '2026-11-22', rates: { CHF: 0.5 } })).status).toBe(200);
    const priced = await answer('?display_currency=CHF');
    expect(priced.status, JSON.stringify(priced.body)).toBe(200);
    expect(priced.body.product.converted).toMatchObject({ currency: 'CHF', monthly: 6, rate_date: '2026-11-22' });
    expect((await answer('/alternatives?display_currency=CHF')).body.display_currency).toBe('CHF');
    const page = await fetch(`${reader.url}/products/${euro.id}?display_currency=CHF`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(new Intl.NumberFormat('en', { style: 'currency', currency: 'CHF' }).format(6));
  });
});
