// What search engines read besides the pages: robots.txt, the sitemap (sitemaps.org protocol 0.9) and schema.org
// structured data of a product page.
import type { CanonicalPeriod } from '../catalog/billing-periods.js';
import type { ListedProduct } from '../store/directory/listed-product.js';
import { Html } from './html.js';

/** Paths no crawler should ask for: the operator's and the providers' APIs, the probes. */
const DISALLOWED = ['/admin/', '/api/v1/sync/', '/api/v1/products', '/healthz', '/readyz', '/metrics'];

export function robotsTxt(baseUrl: string): string {
  return `User-agent: *\n${DISALLOWED.map((path) => `Disallow: ${path}\n`).join('')}Allow: /\n\nSitemap: ${baseUrl}/sitemap.xml\n`;
}

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ENTITIES[c]!);
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NAMESPACE = 'http://www.sitemaps.org/schemas/sitemap/0.9';

/** URLs per sitemap page: the sitemap protocol's limit, so that a search engine is sent as few pages as it allows. */
export const SITEMAP_URLS_PER_PAGE = 50_000;

/** The sitemap index: one <sitemap> per page of at most SITEMAP_URLS_PER_PAGE URLs. */
export function sitemapIndex(pages: string[]): string {
  return `${XML_HEAD}<sitemapindex xmlns="${NAMESPACE}">\n${pages.map((loc) => `<sitemap><loc>${escapeXml(loc)}</loc></sitemap>\n`).join('')}</sitemapindex>\n`;
}

export interface SitemapUrl {
  loc: string;
  lastmod?: string | null;
}

export const URLSET_OPEN = `${XML_HEAD}<urlset xmlns="${NAMESPACE}">\n`;
export const URLSET_CLOSE = '</urlset>\n';

export function sitemapUrls(urls: SitemapUrl[]): string {
  return urls
    .map(
      ({ loc, lastmod }) =>
        `<url><loc>${escapeXml(loc)}</loc>${lastmod ? `<lastmod>${escapeXml(lastmod)}</lastmod>` : ''}</url>\n`,
    )
    .join('');
}

/** How long each billing period is, as schema.org's referenceQuantity (UN/CEFACT unit codes). */
const PERIOD_QUANTITY: Record<Exclude<CanonicalPeriod, 'one_time'>, [number, string]> = {
  hourly: [1, 'HUR'],
  daily: [1, 'DAY'],
  weekly: [1, 'WEE'],
  monthly: [1, 'MON'],
  quarterly: [3, 'MON'],
  semiannually: [6, 'MON'],
  annually: [1, 'ANN'],
  biennially: [2, 'ANN'],
  triennially: [3, 'ANN'],
};

function offer(
  price: number,
  currency: string,
  url: string,
  seller: string,
  period: CanonicalPeriod | null,
  label?: string,
): Record<string, unknown> {
  const quantity = period && period !== 'one_time' ? PERIOD_QUANTITY[period] : null;
  return {
    '@type': 'Offer',
    ...(label ? { name: label } : {}),
    price,
    priceCurrency: currency,
    url,
    availability: 'https://schema.org/InStock',
    seller: { '@type': 'Organization', name: seller },
    ...(quantity
      ? {
          priceSpecification: {
            '@type': 'UnitPriceSpecification',
            price,
            priceCurrency: currency,
            referenceQuantity: { '@type': 'QuantitativeValue', value: quantity[0], unitCode: quantity[1] },
          },
        }
      : {}),
  };
}

/**
 * schema.org Product with one Offer per pricing tier (its period as the price's reference quantity), or one monthly
 * Offer for a product priced without tiers; none for "price on request".
 */
export function productStructuredData(
  product: ListedProduct,
  url: string,
  categoryLabel: string,
): Record<string, unknown> {
  const seller = product.host.name;
  const tiers = product.pricing_tiers ?? [];
  const offers =
    tiers.length > 0
      ? tiers.map((tier) => offer(tier.price, product.currency, url, seller, tier.canonical_period, tier.period))
      : product.price !== null
        ? [offer(product.price, product.currency, url, seller, 'monthly')]
        : [];
  return {
    '@context': 'https://schema.org',
    '@type': 'Product',
    '@id': url,
    name: product.name,
    ...(product.description ? { description: product.description } : {}),
    sku: product.id,
    url,
    category: categoryLabel,
    brand: { '@type': 'Brand', name: seller },
    ...(offers.length > 0 ? { offers } : {}),
  };
}

/**
 * The data as a <script type="application/ld+json"> element. Inside a script element HTML entities are not decoded,
 * so nothing is escaped as HTML: instead every <, > and & of the JSON (and U+2028, U+2029) is written as a \u escape,
 * which JSON reads back as the same character, and no text of a product can close the element ("</script>") or
 * open a comment ("<!--").
 */
export function jsonLdScript(data: unknown): Html {
  const json = JSON.stringify(data).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return new Html(`<script type="application/ld+json">${json}</script>`);
}
