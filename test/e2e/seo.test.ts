// What search engines and browsers read besides the content: robots.txt, the sitemap index and its pages (paged
// by SITEMAP_URLS_PER_PAGE), the icon, a meta description and an absolute canonical link on every page, and
// schema.org Product/Offer data on product pages that no product text can break out of.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { STORES, startInProcessServer, startServer, type ServerUnderTest, type TestServer } from '../support/server.js';

const PER_PAGE = 40;
const PUBLIC_URL = 'https://directory.example.org';

function linksOf(html: string, rel: string): string[] {
  return [...html.matchAll(new RegExp(`<link rel="${rel}" href="([^"]*)"`, 'g'))].map((match) =>
    match[1]!.replaceAll('&amp;', '&'),
  );
}

function descriptionsOf(html: string): string[] {
  return [...html.matchAll(/<meta name="description" content="([^"]*)">/g)].map((match) => match[1]!);
}

function locsOf(xml: string): string[] {
  return [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));
}

describe.each(STORES)('findable pages (%s store)', (store) => {
  let server: ServerUnderTest;
  // The embedded server is told its public address; the PostgreSQL one is not and names its own.
  const withPublicUrl = store === 'embedded';
  let base: string;
  let hosts: Onboarded[];
  const listedIds: string[] = [];

  /** A sitemap URL fetched from this server, whatever public address it names. */
  const local = (url: string) => url.replace(base, '');

  beforeAll(async () => {
    // Sitemap pages of PER_PAGE URLs instead of SITEMAP_URLS_PER_PAGE (50 000), so that a few products fill several.
    server = await startInProcessServer(store, {
      env: withPublicUrl ? { PUBLIC_URL: `${PUBLIC_URL}/` } : {},
      config: { sitemapUrlsPerPage: PER_PAGE },
    });
    base = withPublicUrl ? PUBLIC_URL : server.url;
    hosts = [];
    for (const name of ['Sitemap Alpha', 'Sitemap Beta', 'Sitemap Gone'])
      hosts.push(await onboard(server, `${name} ${store}`));
    // 2 × 70 listed products and 30 of a host that is then suspended: four product pages of at most 40.
    const catalogue = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => product(`${prefix}-${i}`, { price: i + 1 }));
    for (const [k, host] of hosts.entries()) {
      const answer = await sync(server, host.key, catalogue(`s${k}`, k === 2 ? 30 : 70));
      expect(answer.status).toBe(200);
      if (k < 2) listedIds.push(...answer.body.products.map((entry: { id: string }) => entry.id));
    }
    expect((await admin(server, 'POST', `/hosts/${hosts[2]!.slug}/suspend`)).status).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('serves robots.txt: the operator and provider APIs disallowed, the sitemap named by its absolute address', async () => {
    const robots = await call(server, 'GET', '/robots.txt');
    expect(robots.status).toBe(200);
    expect(robots.headers.get('content-type')).toMatch(/^text\/plain/);
    const lines = robots.text.split('\n');
    expect(lines[0]).toBe('User-agent: *');
    for (const path of ['/admin/', '/api/v1/sync/', '/api/v1/products']) expect(lines).toContain(`Disallow: ${path}`);
    // The public directory and its API stay crawlable.
    expect(
      lines.filter((line) => /^Disallow: \/(api\/v1\/directory|categories|search|products\/|hosts)?$/.test(line)),
    ).toEqual([]);
    expect(lines).toContain(`Sitemap: ${base}/sitemap.xml`);
    const again = await call(server, 'GET', '/robots.txt', {
      headers: { 'if-none-match': robots.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('lists every listed host, category and product once in a sitemap index of pages of at most SITEMAP_URLS_PER_PAGE', async () => {
    const index = await call(server, 'GET', '/sitemap.xml');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(index.text).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<sitemapindex xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/,
    );
    expect(index.headers.get('etag')).toBeTruthy();
    const pages = locsOf(index.text);
    for (const page of pages) expect(page.startsWith(`${base}/sitemaps/`), page).toBe(true);
    const productPages = pages.filter((page) => page.includes('/sitemaps/products.xml'));
    // 170 active products (30 of them of the suspended host): pages start every 40 of them.
    expect(productPages).toHaveLength(Math.ceil(170 / PER_PAGE));

    const urls: string[] = [];
    for (const page of pages) {
      const answer = await call(server, 'GET', local(page));
      expect(answer.status, page).toBe(200);
      expect(answer.text).toMatch(/<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
      const locs = locsOf(answer.text);
      expect(locs.length, page).toBeLessThanOrEqual(PER_PAGE);
      if (page.includes('/products.xml')) expect((answer.text.match(/<lastmod>/g) ?? []).length).toBe(locs.length);
      urls.push(...locs);
    }
    expect(new Set(urls).size).toBe(urls.length);
    const products = urls
      .filter((url) => url.startsWith(`${base}/products/`))
      .map((url) => url.slice(`${base}/products/`.length));
    expect(products.sort()).toEqual([...listedIds].sort());
    expect(urls).toEqual(expect.arrayContaining([`${base}/`, `${base}/hosts`, `${base}/categories/vps_cloud`]));
    const hostUrls = urls.filter((url) => url.startsWith(`${base}/hosts/`));
    expect(hostUrls).toEqual(
      expect.arrayContaining([`${base}/hosts/${hosts[0]!.slug}`, `${base}/hosts/${hosts[1]!.slug}`]),
    );
    expect(hostUrls).not.toContain(`${base}/hosts/${hosts[2]!.slug}`);
    // Each listed URL is a page that answers.
    for (const url of [urls.find((u) => u.includes('/products/'))!, hostUrls[0]!, `${base}/categories/vps_cloud`]) {
      expect((await call(server, 'GET', local(url))).status, url).toBe(200);
    }
    // A range that is not one of its ids is refused, not run.
    expect((await call(server, 'GET', '/sitemaps/products.xml?from=%27%20OR%201%3D1')).status).toBe(422);
  });

  it('serves the icon as SVG and as ICO, and links it from every page', async () => {
    const ico = await fetch(`${server.url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await ico.arrayBuffer());
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
    const offset = bytes.readUInt32LE(18);
    expect(bytes.subarray(offset, offset + 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
    expect(bytes.readUInt32LE(14)).toBe(bytes.length - offset);
    const svg = await fetch(`${server.url}/favicon.svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await svg.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });

  it('gives every page a meta description and one absolute canonical link without paging or sort parameters', async () => {
    const someProduct = listedIds[0]!;
    const cursorPage = await call(server, 'GET', '/categories/vps_cloud?location=Frankfurt&sort=newest', {
      headers: { accept: 'text/html' },
    });
    const next = /rel="next" href="([^"]*)"/.exec(cursorPage.text)![1]!.replaceAll('&amp;', '&');
    expect(next).toContain('cursor=');
    const pages: [string, string | null][] = [
      ['/', `${base}/`],
      ['/hosts', `${base}/hosts`],
      [`/hosts/${hosts[0]!.slug}`, `${base}/hosts/${hosts[0]!.slug}`],
      ['/categories/vps_cloud', `${base}/categories/vps_cloud`],
      [next, `${base}/categories/vps_cloud?location=Frankfurt`],
      ['/search', `${base}/search`],
      [
        '/search?q=cloud&category=vps_cloud&max_price=30&currency=usd&sort=name_desc&utm_source=x',
        `${base}/search?q=cloud&category=vps_cloud&max_price=30&currency=USD`,
      ],
      [`/products/${someProduct}`, `${base}/products/${someProduct}`],
      ['/api/v1/problems/rate-limited', `${base}/api/v1/problems/rate-limited`],
      ['/no-such-page', null],
    ];
    for (const [path, canonical] of pages) {
      const page = await call(server, 'GET', path, { headers: { accept: 'text/html' } });
      expect(page.status, path).toBe(canonical === null ? 404 : 200);
      const descriptions = descriptionsOf(page.text);
      expect(descriptions, path).toHaveLength(1);
      expect(descriptions[0]!.length, path).toBeGreaterThan(20);
      expect(linksOf(page.text, 'canonical'), path).toEqual(canonical === null ? [] : [canonical]);
      expect(linksOf(page.text, 'icon'), path).toEqual(['/favicon.svg']);
    }
    // A search page says what it lists.
    const search = await call(
      server,
      'GET',
      '/search?q=cloud&category=vps_cloud&location=Frankfurt&feature=NVMe&max_price=30&currency=EUR',
      {
        headers: { accept: 'text/html' },
      },
    );
    expect(descriptionsOf(search.text)[0]).toMatch(
      /^Cloud VPS plans matching “cloud” in Frankfurt, Germany with NVMe for at most €30\.00 a month, compared across providers/,
    );
  });

  it('describes a product page as schema.org Product and Offers, and no product text can break out of its script', async () => {
    const host = await onboard(server, `Structured ${store}`);
    const name = '</script><script>alert(1)</script> & <!-- «VPS» \u2028';
    const description = 'Ends a script: </SCRIPT> and </script >';
    const answer = await sync(server, host.key, [
      product('ld-1', {
        name,
        description,
        currency: 'eur',
        price: 4.5,
        pricing_tiers: [
          { period: 'Monthly', price: 4.5 },
          { period: 'Annually', price: 45 },
          { period: 'per lunar month', price: 4 },
        ],
      }),
      { external_id: 'ld-2', name: 'Quoted', category: 'colocation' },
    ]);
    expect(answer.status).toBe(200);
    const [tiered, quoted] = answer.body.products.map((entry: { id: string }) => entry.id) as [string, string];
    const page = await call(server, 'GET', `/products/${tiered}`);
    expect(page.status).toBe(200);
    const scripts = [...page.text.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/gi)];
    expect(scripts).toHaveLength(1);
    // The only closing tag is the element's own, and nothing else of the product reached the page as markup.
    expect(page.text.match(/<\/script/gi)).toHaveLength(1);
    expect(page.text).not.toContain('<script>alert(1)');
    const data = JSON.parse(scripts[0]![1]!);
    const url = `${base}/products/${tiered}`;
    expect(data).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: name.trim(),
      description,
      sku: tiered,
      url,
      category: 'Cloud VPS',
      brand: { '@type': 'Brand', name: `Structured ${store}` },
    });
    expect(data.offers).toEqual([
      expect.objectContaining({
        '@type': 'Offer',
        price: 4.5,
        priceCurrency: 'EUR',
        availability: 'https://schema.org/InStock',
        priceSpecification: expect.objectContaining({
          referenceQuantity: { '@type': 'QuantitativeValue', value: 1, unitCode: 'MON' },
        }),
      }),
      expect.objectContaining({
        price: 45,
        priceSpecification: expect.objectContaining({
          referenceQuantity: { '@type': 'QuantitativeValue', value: 1, unitCode: 'ANN' },
        }),
      }),
      // A period the directory does not know has a price but no stated length.
      expect.not.objectContaining({ priceSpecification: expect.anything() }),
    ]);
    expect(data.offers[2]).toMatchObject({ name: 'per lunar month', price: 4, priceCurrency: 'EUR' });
    // "Price on request": a product, with no offer.
    const onRequest = await call(server, 'GET', `/products/${quoted}`);
    const quotedData = JSON.parse(
      /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(onRequest.text)![1]!,
    );
    expect(quotedData).toMatchObject({ '@type': 'Product', name: 'Quoted' });
    expect(quotedData.offers).toBeUndefined();
  });
});

describe('the public address behind a proxy', () => {
  let trusting: TestServer;
  let direct: TestServer;

  beforeAll(async () => {
    [trusting, direct] = await Promise.all([
      startServer('embedded', { env: { TRUST_PROXY: '127.0.0.1' } }),
      startServer('embedded'),
    ]);
  });
  afterAll(async () => {
    await Promise.all([trusting?.stop(), direct?.stop()]);
  });

  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'hosting.example.net', accept: 'text/html' };

  it('takes the address a proxy named by TRUST_PROXY forwards, and nobody else’s', async () => {
    const behind = await call(trusting, 'GET', '/hosts', { headers: forwarded });
    expect(linksOf(behind.text, 'canonical')).toEqual(['https://hosting.example.net/hosts']);
    expect((await call(trusting, 'GET', '/robots.txt', { headers: forwarded })).text).toContain(
      'Sitemap: https://hosting.example.net/sitemap.xml',
    );
    // Without TRUST_PROXY the headers, and a Host header, are a client's word: links name the server's own address.
    const spoofed = await call(direct, 'GET', '/hosts', { headers: { ...forwarded, host: 'evil.example' } });
    expect(linksOf(spoofed.text, 'canonical')).toEqual([`${direct.url}/hosts`]);
    expect((await call(direct, 'GET', '/sitemap.xml', { headers: { host: 'evil.example' } })).text).not.toContain(
      'evil.example',
    );
  });
});
