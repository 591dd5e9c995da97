// What a visitor or a program can subscribe to or take away: an Atom feed of every search (new plans, price drops,
// sell-outs and restocks matching it), a CSV export of its results streamed page by page, and the change feed of the
// whole directory.
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { idPattern } from '../../catalog/ids.js';
import { listCategories } from '../../store/categories.js';
import type { ListedProduct } from '../../store/directory/listed-product.js';
import { searchProducts } from '../../store/directory/product-listing.js';
import type { ProductSearch } from '../../store/directory/search.js';
import {
  changesAfter,
  directoryVersion,
  listedProductsById,
  recentPriceDrops,
  recentStockChanges,
  type ChangePosition,
  type StockChange,
} from '../../store/feeds.js';
import { dayBefore, freshnessOf } from '../../store/freshness.js';
import { ATOM_TYPE, buildAtom, type AtomEntry } from '../../web/atom.js';
import { CSV_TYPE, csvNumber, csvRecord, csvText } from '../../web/csv.js';
import { formatPrice } from '../../web/format.js';
import type { AppContext } from '../context.js';
import { PRICE_DROP_DAYS, ProductSearchQuery, toProductSearch } from '../directory-query.js';
import { PUBLIC_CACHE_CONTROL } from '../freshness.js';
import { Problem } from '../problems.js';
import { publicBaseUrl } from '../public-url.js';
import { json } from '../schemas.js';

const TAGS = ['directory'];

const FeedQuery = Type.Omit(ProductSearchQuery, ['cursor', 'limit', 'sort', 'order']);
type FeedQuery = Static<typeof FeedQuery>;
const ExportQuery = Type.Omit(ProductSearchQuery, ['cursor', 'limit']);
type ExportQuery = Static<typeof ExportQuery>;

/** Entries of an Atom feed: the newest new plans, price drops, sell-outs and restocks together. */
const FEED_ENTRIES = 50;
/** Products read per query while an export streams. */
const EXPORT_PAGE = 500;

const CHANGE_CURSOR = /^\d{1,20}$/;
const RUN_ID = new RegExp(idPattern('syn'));
const ChangesQuery = Type.Object({
  since: Type.Optional(
    Type.String({ maxLength: 200, description: 'next_since of the previous answer; absent: from the first change' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const ChangesPage = Type.Object(
  {
    changes: Type.Array(
      Type.Object(
        {
          product_id: Type.String({ pattern: idPattern('prd') }),
          action: Type.Union(
            [
              Type.Literal('created'),
              Type.Literal('updated'),
              Type.Literal('reactivated'),
              Type.Literal('deactivated'),
              Type.Literal('sold_out'),
              Type.Literal('restocked'),
            ],
            {
              description:
                "sold_out: its stock became 0; restocked: its stock left 0 (both after the run's other changes, " +
                'which also name the product as updated or reactivated)',
            },
          ),
          host: Type.String({ description: "the host's slug" }),
          sync_id: Type.String({ pattern: idPattern('syn'), description: 'the sync that made the change' }),
          at: Type.String({ format: 'date-time', description: 'when that sync was applied' }),
          listed: Type.Boolean({
            description: 'whether the product is listed now (see GET /api/v1/directory/products/{id})',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    next_since: nullable(
      Type.String({
        description: 'pass as since to read on; the same as since when nothing is new yet; null before any change',
      }),
    ),
    more: Type.Boolean({ description: 'more changes can be read at once' }),
  },
  { $id: 'DirectoryChanges', additionalProperties: false },
);

/** The feeds' named schemas, for the OpenAPI document's components. */
export const FEED_SCHEMAS = [ChangesPage];

function encodePosition(position: ChangePosition | null): string | null {
  return position
    ? Buffer.from(JSON.stringify([position.xid, position.runId, position.index]), 'utf8').toString('base64url')
    : null;
}

function decodePosition(since: string | undefined): ChangePosition | null {
  if (!since) return null;
  let content: unknown;
  try {
    content = JSON.parse(Buffer.from(since, 'base64url').toString('utf8'));
  } catch {
    content = null;
  }
  const [xid, runId, index] = Array.isArray(content) ? (content as unknown[]) : [];
  if (
    typeof xid !== 'string' ||
    !CHANGE_CURSOR.test(xid) ||
    typeof runId !== 'string' ||
    !RUN_ID.test(runId) ||
    !Number.isSafeInteger(index) ||
    (index as number) < 0
  ) {
    throw new Problem('VALIDATION_FAILED', 'since is not a position this server issued', {
      errors: [
        { parameter: 'since', code: 'invalid_cursor', detail: 'pass next_since of a previous answer unchanged' },
      ],
    });
  }
  return { xid, runId, index: index as number };
}

/** The query string of the filters a search was given, in a fixed order: what names the feed. */
function filterQuery(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const name of Object.keys(query).sort()) {
    const value = query[name];
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function priceText(amount: number, product: ListedProduct): string {
  return `${formatPrice(amount, product.currency)} per month`;
}

function newPlanEntry(product: ListedProduct, base: string): AtomEntry {
  const price = product.monthly_price === null ? 'price on request' : priceText(product.monthly_price, product);
  return {
    id: `tag:hostdir,2026:${product.id}/created`,
    title: `New: ${product.name} by ${product.host.name}, ${price}`,
    updated: product.created_at,
    published: product.created_at,
    link: `${base}/products/${encodeURIComponent(product.id)}`,
    summary: `${product.host.name} lists a new plan, ${product.name} (${product.category}): ${price}.`,
    categories: [{ term: product.category }],
  };
}

function stockEntry(change: StockChange, base: string): AtomEntry {
  const { product } = change;
  const back = change.event === 'restocked';
  const left = product.stock !== null && product.stock > 0 ? ` (${product.stock} left)` : '';
  return {
    id: `tag:hostdir,2026:${product.id}/${change.event}/${change.sync_id}`,
    title: `${back ? 'Back in stock' : 'Sold out'}: ${product.name} by ${product.host.name}`,
    updated: change.at,
    published: change.at,
    link: `${base}/products/${encodeURIComponent(product.id)}`,
    summary: back
      ? `${product.name} by ${product.host.name} can be ordered again${left}.`
      : `${product.host.name} has sold out of ${product.name}.`,
    categories: [{ term: product.category }],
  };
}

/** The ETag of a streamed answer: of what it is made from, since its bytes are not known before they are sent. */
function streamEtag(parts: string[]): string {
  return `W/"${createHash('sha256').update(parts.join('\n')).digest('base64url').slice(0, 27)}"`;
}

function notModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('etag', etag).header('cache-control', PUBLIC_CACHE_CONTROL).header('vary', 'accept-encoding');
  const held = String(request.headers['if-none-match'] ?? '');
  return held.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*' || `W/${tag.trim()}` === etag);
}

const CSV_HEADER = [
  'id',
  'name',
  'host',
  'host_name',
  'category',
  'monthly_price',
  'price',
  'currency',
  'setup_fee',
  'contract_duration',
  'datacenter_locations',
  'features',
  'url',
  'confirmed_at',
  'stale',
  'updated_at',
  'stock',
];

function csvRow(product: ListedProduct, base: string): string {
  return csvRecord([
    csvText(product.id),
    csvText(product.name),
    csvText(product.host.slug),
    csvText(product.host.name),
    csvText(product.category),
    csvNumber(product.monthly_price),
    csvNumber(product.price),
    csvText(product.currency),
    csvNumber(product.setup_fee),
    csvText(product.contract_duration),
    csvText((product.datacenter_locations ?? []).join('; ')),
    csvText((product.features ?? []).join('; ')),
    csvText(`${base}/products/${encodeURIComponent(product.id)}`),
    csvText(product.confirmed_at),
    product.stale ? 'true' : 'false',
    csvText(product.updated_at),
    csvNumber(product.stock),
  ]);
}

export const feedRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { staleAfterDays } = context.config;

  app.get<{ Querystring: FeedQuery }>(
    '/api/v1/directory/feed.atom',
    {
      schema: {
        tags: TAGS,
        operationId: 'getDirectoryFeed',
        summary:
          'Atom feed of a search: its newest plans, price drops, sell-outs and restocks (same filters as /directory/products)',
        querystring: FeedQuery,
        response: {
          200: { description: 'an Atom 1.0 feed', content: { 'application/atom+xml': { schema: Type.String() } } },
        },
      },
    },
    async (request, reply) => {
      const base = publicBaseUrl(context.config, request);
      const search: ProductSearch = toProductSearch(
        { ...request.query, sort: 'newest', limit: FEED_ENTRIES },
        { staleAfterDays },
      );
      const [plans, drops, stock, categories] = await Promise.all([
        searchProducts(context.directory, search),
        recentPriceDrops(context.directory, search),
        recentStockChanges(context.directory, search),
        listCategories(context.directory),
      ]);
      const label = new Map(categories.map((category) => [category.slug, category.label]));
      const entries: AtomEntry[] = [
        ...plans.products.map((product) => newPlanEntry(product, base)),
        ...drops.map((drop) => ({
          id: `tag:hostdir,2026:${drop.product.id}/price/${drop.sync_id}`,
          title: `Price drop: ${drop.product.name} by ${drop.product.host.name}, ${priceText(drop.previous_monthly_price, drop.product)} → ${priceText(drop.monthly_price, drop.product)}`,
          updated: drop.at,
          published: drop.at,
          link: `${base}/products/${encodeURIComponent(drop.product.id)}`,
          summary: `${drop.product.host.name} lowered the monthly price of ${drop.product.name} from ${formatPrice(drop.previous_monthly_price, drop.product.currency)} to ${formatPrice(drop.monthly_price, drop.product.currency)}.`,
          categories: [{ term: drop.product.category }],
        })),
        ...stock.map((change) => stockEntry(change, base)),
      ]
        .sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id < b.id ? -1 : 1))
        .slice(0, FEED_ENTRIES)
        .map((entry) => ({
          ...entry,
          categories: entry.categories?.map((c) => ({ term: c.term, label: label.get(c.term) ?? c.term })),
        }));
      const query = filterQuery(request.query);
      const atom = buildAtom({
        id: `tag:hostdir,2026:feed${query}`,
        title: `hostdir: new plans, price drops and stock${request.query.q ? ` for “${request.query.q}”` : ''}`,
        subtitle:
          'New hosting plans, lower monthly prices, sell-outs and restocks, as the providers’ billing systems synced them',
        // An empty feed names a fixed moment, so that it reads the same until something arrives.
        updated: entries[0]?.updated ?? '1970-01-01T00:00:00.000Z',
        author: 'hostdir',
        links: [
          { href: `${base}/api/v1/directory/feed.atom${query}`, rel: 'self', type: 'application/atom+xml' },
          { href: `${base}/search${query}`, rel: 'alternate', type: 'text/html' },
        ],
        entries,
      });
      return reply.type(ATOM_TYPE).send(atom);
    },
  );

  app.get<{ Querystring: ExportQuery }>(
    '/api/v1/directory/export.csv',
    {
      schema: {
        tags: TAGS,
        operationId: 'exportDirectoryProducts',
        summary: 'Every result of a search as CSV (same filters and sorts as /directory/products), streamed',
        querystring: ExportQuery,
        response: {
          200: { description: 'RFC 4180 CSV with a header row', content: { 'text/csv': { schema: Type.String() } } },
        },
      },
    },
    async (request, reply) => {
      const base = publicBaseUrl(context.config, request);
      const first = toProductSearch({ ...request.query, limit: 100 }, { staleAfterDays });
      const etag = streamEtag([
        base,
        filterQuery(request.query),
        await directoryVersion(context.directory, first.freshness.staleBefore),
      ]);
      if (notModified(request, reply, etag)) return reply.code(304).send();
      const directory = context.directory;
      async function* rows(): AsyncGenerator<string> {
        yield csvRecord(CSV_HEADER);
        let search: ProductSearch = { ...first, limit: EXPORT_PAGE, after: null };
        for (;;) {
          const page = await searchProducts(directory, search);
          let chunk = '';
          for (const product of page.products) chunk += csvRow(product, base);
          if (chunk) yield chunk;
          if (page.next === null) return;
          search = { ...search, after: page.next };
        }
      }
      return reply
        .type(CSV_TYPE)
        .header('content-disposition', 'attachment; filename="hostdir-products.csv"')
        .send(Readable.from(rows()));
    },
  );

  app.get<{ Querystring: Static<typeof ChangesQuery> }>(
    '/api/v1/directory/changes',
    {
      schema: {
        tags: TAGS,
        operationId: 'listDirectoryChanges',
        summary: 'Every change syncs made to the directory, in order, from a position (for aggregators)',
        querystring: ChangesQuery,
        response: { 200: json('one page of changes', ChangesPage) },
      },
    },
    async (request) => {
      const after = decodePosition(request.query.since);
      const page = await changesAfter(context.directory, after, request.query.limit ?? 100);
      const listed = await listedProductsById(
        context.directory,
        [...new Set(page.changes.map((change) => change.product_id))],
        { ...freshnessOf(staleAfterDays, true), dropsSince: dayBefore(PRICE_DROP_DAYS) },
      );
      return {
        changes: page.changes.map((change) => ({ ...change, listed: listed.has(change.product_id) })),
        next_since: encodePosition(page.next),
        more: page.more,
      };
    },
  );
};
