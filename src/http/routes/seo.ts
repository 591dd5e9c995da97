// What search engines and browsers ask for besides the pages: robots.txt, the sitemap index and its pages, the icon.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { idPattern } from '../../catalog/ids.js';
import { HOST_SLUG_PATTERN } from '../../catalog/slugs.js';
import { keptListedCategories } from '../../store/directory/listed-categories.js';
import {
  sitemapHostRanges,
  sitemapHosts,
  sitemapProductRanges,
  sitemapProducts,
  type SitemapEntry,
  type SitemapRange,
} from '../../store/sitemap.js';
import { FAVICON_ICO, FAVICON_SVG } from '../../web/favicon.js';
import { queryString } from '../../web/html.js';
import { robotsTxt, sitemapIndex, sitemapUrls, URLSET_CLOSE, URLSET_OPEN } from '../../web/seo.js';
import type { AppContext } from '../context.js';
import { publicBaseUrl } from '../public-url.js';

const XML = 'application/xml; charset=utf-8';

const rangeQuery = (pattern: string) =>
  Type.Object(
    {
      from: Type.Optional(Type.String({ pattern, maxLength: 100 })),
      to: Type.Optional(Type.String({ pattern, maxLength: 100 })),
    },
    { additionalProperties: false },
  );
const ProductRange = rangeQuery(idPattern('prd'));
const HostRange = rangeQuery(HOST_SLUG_PATTERN);
type Range = Static<typeof ProductRange>;

function pageUrl(base: string, path: string, range: SitemapRange): string {
  return `${base}${path}${queryString({ from: range.from, to: range.to })}`;
}

/** A sitemap page, written a chunk of rows at a time. */
async function urlset(entries: AsyncGenerator<SitemapEntry[]>, loc: (key: string) => string): Promise<string> {
  let xml = URLSET_OPEN;
  for await (const chunk of entries)
    xml += sitemapUrls(chunk.map((entry) => ({ loc: loc(entry.key), lastmod: entry.lastmod })));
  return xml + URLSET_CLOSE;
}

export const seoRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { config } = context;
  const perPage = config.sitemapUrlsPerPage;

  app.get('/robots.txt', async (request, reply) => {
    reply.type('text/plain; charset=utf-8');
    return robotsTxt(publicBaseUrl(config, request));
  });

  app.get('/sitemap.xml', async (request, reply) => {
    const base = publicBaseUrl(config, request);
    const [hosts, products] = await Promise.all([
      sitemapHostRanges(context.directory, perPage),
      sitemapProductRanges(context.directory, perPage),
    ]);
    reply.type(XML);
    return sitemapIndex([
      `${base}/sitemaps/pages.xml`,
      ...hosts.map((range) => pageUrl(base, '/sitemaps/hosts.xml', range)),
      ...products.map((range) => pageUrl(base, '/sitemaps/products.xml', range)),
    ]);
  });

  app.get('/sitemaps/pages.xml', async (request, reply) => {
    const base = publicBaseUrl(config, request);
    const categories = (await keptListedCategories(context.directory)).filter((category) => category.product_count > 0);
    reply.type(XML);
    return (
      URLSET_OPEN +
      sitemapUrls([
        { loc: `${base}/` },
        { loc: `${base}/hosts` },
        ...categories.map((category) => ({ loc: `${base}/categories/${encodeURIComponent(category.slug)}` })),
      ]) +
      URLSET_CLOSE
    );
  });

  app.get<{ Querystring: Range }>(
    '/sitemaps/hosts.xml',
    { schema: { querystring: HostRange } },
    async (request, reply) => {
      const base = publicBaseUrl(config, request);
      const range = { from: request.query.from ?? null, to: request.query.to ?? null };
      const xml = await urlset(
        sitemapHosts(context.directory, range, perPage),
        (slug) => `${base}/hosts/${encodeURIComponent(slug)}`,
      );
      return reply.type(XML).send(xml);
    },
  );

  app.get<{ Querystring: Range }>(
    '/sitemaps/products.xml',
    { schema: { querystring: ProductRange } },
    async (request, reply) => {
      const base = publicBaseUrl(config, request);
      const range = { from: request.query.from ?? null, to: request.query.to ?? null };
      const xml = await urlset(
        sitemapProducts(context.directory, range, perPage),
        (id) => `${base}/products/${encodeURIComponent(id)}`,
      );
      return reply.type(XML).send(xml);
    },
  );

  app.get('/favicon.svg', async (_request, reply) => reply.type('image/svg+xml').send(FAVICON_SVG));
  app.get('/favicon.ico', async (_request, reply) => reply.type('image/x-icon').send(FAVICON_ICO));
};
