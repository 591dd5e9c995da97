// The public directory API: listed hosts and products, searchable across hosts. No key needed.
import { Type, type Static } from '@sinclair/typebox';
// The swagger plugin's typings add tags and summary to route schemas for the OpenAPI document.
import type {} from '@fastify/swagger';
import type { FastifyPluginAsync } from 'fastify';
import { STORED_CURRENCY_PATTERN } from '../../catalog/currency.js';
import { idPattern } from '../../catalog/ids.js';
import { CONTENT_OUTPUT } from '../../catalog/product-fields.js';
import { HOST_SLUG_PATTERN, isHostSlug } from '../../catalog/slugs.js';
import { DISK_TYPES, NUMERIC_SPEC_KEYS, NUMERIC_SPECS, UNLIMITED } from '../../catalog/specs.js';
import { keptFilterChoices } from '../../store/directory/filter-choices.js';
import { findListedHost, listListedHosts } from '../../store/directory/listed-hosts.js';
import { ALTERNATIVES_MAX, ALTERNATIVES_WALK, cheaperAlternatives } from '../../store/directory/alternatives.js';
import { findPricedProduct, pricedSearch } from '../../store/directory/priced-search.js';
import { countProducts } from '../../store/directory/product-counts.js';
import type { ProductSearch } from '../../store/directory/search.js';
import { dayBefore, freshnessOf } from '../../store/freshness.js';
import { listedPriceHistory, PRICE_HISTORY_MAX_CHANGES } from '../../store/price-history.js';
import type { PriceContext } from '../../store/rates.js';
import type { AppContext } from '../context.js';
import { encodeSearchCursor, given, PRICE_DROP_DAYS, ProductSearchQuery, toProductSearch } from '../directory-query.js';
import {
  ConvertedSchema,
  CostSchema,
  PricePerSchema,
  priceView,
  pricedProduct,
  unconvertedAmong,
} from '../listed-prices.js';
import { Problem } from '../problems.js';
import { json } from '../schemas.js';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const FreshnessFields = {
  confirmed_at: nullable(
    Type.String({
      format: 'date-time',
      description: "the host's last applied sync: when its billing system last confirmed the listing",
    }),
  ),
  stale: Type.Boolean({ description: 'confirmed_at is older than STALE_AFTER_DAYS (or the host never synced)' }),
};

const ComparableSpecsSchema = Type.Object(
  {
    ...Object.fromEntries(
      NUMERIC_SPEC_KEYS.map((key) => [
        key,
        Type.Optional(
          Type.Number({
            description: `${NUMERIC_SPECS[key].label}${NUMERIC_SPECS[key].unit ? ` in ${NUMERIC_SPECS[key].unit}` : ''}; ${UNLIMITED} means unlimited / unmetered`,
          }),
        ),
      ]),
    ),
    disk_type: Type.Optional(Type.Union(DISK_TYPES.map((type) => Type.Literal(type)))),
  },
  {
    additionalProperties: false,
    description:
      "the specs read as the vocabulary of the category's family (only what the provider's specs give); the specs as sent are in `specs`",
  },
);

const PlaceSchema = Type.Object(
  {
    location: Type.String({ description: 'as listed' }),
    city: nullable(Type.String({ description: "the gazetteer's city; null when it does not know the location" })),
    country: nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' })),
  },
  { additionalProperties: false },
);

/** A product in a list: lists leave out `places`, which the product itself and a comparison carry. */
const ListedProductSchema = Type.Object(
  {
    id: Type.String({ pattern: idPattern('prd') }),
    ...CONTENT_OUTPUT,
    comparable_specs: ComparableSpecsSchema,
    monthly_price: nullable(
      Type.Number({
        description: 'the price of the tier naming the monthly period if there is one, else price; null when neither',
      }),
    ),
    monthly_equivalent: nullable(
      Type.Number({
        description: 'per month, or the monthly equivalent of a plan sold only by longer periods (cost.monthly)',
      }),
    ),
    base_monthly_price: nullable(
      Type.Number({
        description:
          'monthly_equivalent in EUR, by the latest rate of the currency: what a price sort and max_price use across currencies; null without a rate',
      }),
    ),
    order_url: nullable(
      Type.String({
        description: "the provider's order page for this product (from its order-link template); null when it has none",
      }),
    ),
    cost: CostSchema,
    converted: ConvertedSchema,
    price_per: PricePerSchema,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    host: Type.Object({ slug: Type.String(), name: Type.String() }, { additionalProperties: false }),
    ...FreshnessFields,
    price_drop: nullable(
      Type.Object(
        {
          since: Type.String({ format: 'date', description: 'price_dropped_since, or the day 30 days ago' }),
          previous_monthly_price: Type.Number({ description: 'the monthly price on that day (or the first after it)' }),
        },
        { additionalProperties: false, description: 'the monthly price is lower now than on `since`; null when not' },
      ),
    ),
    available: nullable(
      Type.Boolean({
        description: 'true: stock above 0; false: sold out (stock 0); null: the provider does not track its stock',
      }),
    ),
  },
  { $id: 'ListedProduct', additionalProperties: false, description: 'an active product of an active host' },
);

/** A product on its own or in a comparison: as in a list, with each location's city and country. */
export const ProductDetailSchema = Type.Object(
  {
    ...ListedProductSchema.properties,
    places: Type.Array(PlaceSchema, { description: 'datacenter_locations in order, each with its city and country' }),
  },
  {
    $id: 'ListedProductDetail',
    additionalProperties: false,
    description: 'an active product of an active host, with the places of its locations',
  },
);

const ListedHostSchema = Type.Object(
  {
    slug: Type.String({ pattern: HOST_SLUG_PATTERN }),
    name: Type.String(),
    default_currency: Type.String({ pattern: STORED_CURRENCY_PATTERN }),
    website: nullable(Type.String({ description: "the host's website (https)" })),
    description: nullable(Type.String()),
    country: nullable(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2' })),
    product_count: Type.Integer({ minimum: 0, description: 'active products' }),
    created_at: Type.String({ format: 'date-time' }),
    last_synced_at: nullable(Type.String({ format: 'date-time' })),
    ...FreshnessFields,
  },
  { $id: 'Host', additionalProperties: false, description: 'a listed host (provider) of the directory' },
);

const NextCursor = nullable(Type.String({ description: 'pass as cursor for the next page; null on the last page' }));
const DisplayCurrency = Type.String({
  pattern: STORED_CURRENCY_PATTERN,
  description: 'the currency of every `converted`',
});
const Unconverted = Type.Array(Type.String({ pattern: STORED_CURRENCY_PATTERN }), {
  description:
    'currencies of listed products in this scope that have no exchange rate: their products are not converted and sort after the converted ones',
});

const HostsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});
const HostsPage = Type.Object(
  { hosts: Type.Array(Type.Ref(ListedHostSchema)), next_cursor: NextCursor },
  { $id: 'HostsPage', additionalProperties: false },
);
const HostParams = Type.Object({ slug: Type.String({ maxLength: 100 }) });
const HostProductsQuery = Type.Omit(ProductSearchQuery, ['host']);
const HostPage = Type.Object(
  {
    host: Type.Ref(ListedHostSchema),
    products: Type.Array(Type.Ref(ListedProductSchema)),
    next_cursor: NextCursor,
    display_currency: DisplayCurrency,
    unconverted_currencies: Unconverted,
  },
  { $id: 'HostWithProducts', additionalProperties: false },
);
/** The most matches counted exactly when a count is asked for; beyond, the answer says "more than". */
const COUNT_CAP = 1000;

const ProductsQuery = Type.Composite([
  ProductSearchQuery,
  Type.Object({
    count: Type.Optional(Type.Boolean({ description: `also count the matches, exactly up to ${COUNT_CAP}` })),
  }),
]);

const ProductsPage = Type.Object(
  {
    products: Type.Array(Type.Ref(ListedProductSchema)),
    next_cursor: NextCursor,
    display_currency: DisplayCurrency,
    unconverted_currencies: Unconverted,
    matches: Type.Optional(
      Type.Object(
        {
          count: Type.Integer({ minimum: 0 }),
          more: Type.Boolean({
            description: `true: there are more than count (${COUNT_CAP}) matches (found so within the last 5 seconds)`,
          }),
        },
        { additionalProperties: false, description: 'with count=true: how many products match the filters' },
      ),
    ),
  },
  { $id: 'ListedProductsPage', additionalProperties: false },
);
const ProductParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const ProductQuery = Type.Pick(ProductSearchQuery, ['display_currency']);
const ProductAnswer = Type.Object(
  { product: Type.Ref(ProductDetailSchema), display_currency: DisplayCurrency },
  { $id: 'ListedProductAnswer', additionalProperties: false },
);
const AlternativesQuery = Type.Composite([
  ProductQuery,
  Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: ALTERNATIVES_MAX, default: 10 })),
  }),
]);
const AlternativesAnswer = Type.Object(
  {
    product_id: Type.String({ pattern: idPattern('prd') }),
    alternatives: Type.Array(Type.Ref(ListedProductSchema), {
      description:
        "listed plans of other providers in the product's category that cost less per month (compared in EUR, " +
        'across currencies) and give at least its RAM, CPU cores and disk where it states them, cheapest first; ' +
        `empty for a product without a converted price. A category with more than ${2 * ALTERNATIVES_WALK} cheaper ` +
        `plans is searched among its ${ALTERNATIVES_WALK} cheapest and the ${ALTERNATIVES_WALK} nearest below ` +
        'the price',
    }),
    display_currency: DisplayCurrency,
  },
  { $id: 'ProductAlternatives', additionalProperties: false },
);
const PricePointSchema = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'since when these prices were in effect' }),
    to: nullable(
      Type.String({ format: 'date-time', description: 'when a sync replaced them; null for the current prices' }),
    ),
    price: CONTENT_OUTPUT.price,
    monthly_price: nullable(Type.Number()),
    currency: CONTENT_OUTPUT.currency,
    setup_fee: CONTENT_OUTPUT.setup_fee,
    pricing_tiers: CONTENT_OUTPUT.pricing_tiers,
  },
  { $id: 'PricePoint', additionalProperties: false, description: 'a set of prices and the span it was in effect' },
);
const PriceHistoryAnswer = Type.Object(
  {
    product_id: Type.String({ pattern: idPattern('prd') }),
    points: Type.Array(Type.Ref(PricePointSchema), { description: 'oldest first; the last is the current prices' }),
    truncated: Type.Boolean({
      description: `earlier changes were forgotten: at most ${PRICE_HISTORY_MAX_CHANGES} are kept per product`,
    }),
  },
  { $id: 'PriceHistory', additionalProperties: false },
);

/** The directory's named schemas, each after those it refers to. */
export const DIRECTORY_SCHEMAS = [
  ListedProductSchema,
  ProductDetailSchema,
  ListedHostSchema,
  HostsPage,
  HostPage,
  ProductsPage,
  ProductAnswer,
  AlternativesAnswer,
  PricePointSchema,
  PriceHistoryAnswer,
];

function decodeHostCursor(cursor: string | undefined): string | null {
  if (!cursor) return null;
  const slug = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isHostSlug(slug)) {
    throw new Problem('VALIDATION_FAILED', 'the cursor is not one this server issued', {
      errors: [
        { parameter: 'cursor', code: 'invalid_cursor', detail: 'pass next_cursor from a previous page unchanged' },
      ],
    });
  }
  return slug;
}

const TAGS = ['directory'];

export const directoryRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { staleAfterDays } = context.config;
  /** The display currency of a request: one without a rate is refused (422). */
  const viewOf = (query: ProductSearchQuery, prices: PriceContext) =>
    priceView(
      { display: query.display_currency, filter: given(query.currency)?.toUpperCase() },
      context.config.displayCurrency,
      prices.rates,
      true,
    );
  /** A request's search at a price context: a refused display currency is named before the search's own errors. */
  const searchOf = (query: ProductSearchQuery, prices: PriceContext): ProductSearch =>
    toProductSearch(query, { staleAfterDays }, viewOf(query, prices));
  /** One page of a search, priced in the display currency, with the currencies of its scope left unconverted. */
  const listing = async (query: ProductSearchQuery, scope: { category?: string; hostSlug?: string }, count = false) => {
    const [{ search, page, prices, beside: matches }, choices] = await Promise.all([
      pricedSearch(
        context.directory,
        (prices) => searchOf(query, prices),
        async (search) => (count ? countProducts(context.directory, search, COUNT_CAP) : undefined),
      ),
      keptFilterChoices(context.directory, scope),
    ]);
    const view = viewOf(query, prices);
    const answer = {
      products: page.products.map((product) => pricedProduct(product, view)),
      next_cursor: encodeSearchCursor(search.sort, search.order, page.next),
      display_currency: view.currency,
      unconverted_currencies: unconvertedAmong(prices, page.products, choices.currencies),
    };
    return matches ? { ...answer, matches } : answer;
  };

  app.get<{ Querystring: Static<typeof HostsQuery> }>(
    '/api/v1/directory/hosts',
    {
      schema: {
        tags: TAGS,
        operationId: 'listDirectoryHosts',
        summary: 'Listed hosts with their product counts, by slug',
        querystring: HostsQuery,
        response: { 200: json('one page of hosts', HostsPage) },
      },
    },
    async (request) => {
      const page = await listListedHosts(context.directory, {
        limit: request.query.limit ?? 50,
        afterSlug: decodeHostCursor(request.query.cursor),
        freshness: freshnessOf(staleAfterDays, true),
      });
      return {
        hosts: page.hosts,
        next_cursor: page.next ? Buffer.from(page.next, 'utf8').toString('base64url') : null,
      };
    },
  );

  app.get<{ Params: Static<typeof HostParams>; Querystring: Static<typeof HostProductsQuery> }>(
    '/api/v1/directory/hosts/:slug',
    {
      schema: {
        tags: TAGS,
        operationId: 'getDirectoryHost',
        summary: 'A listed host and its active products (filters and sorts as in /directory/products)',
        params: HostParams,
        querystring: HostProductsQuery,
        response: { 200: json('the host and one page of its products', HostPage) },
      },
    },
    async (request) => {
      const host = await findListedHost(context.directory, request.params.slug, freshnessOf(staleAfterDays, true));
      if (!host) throw new Problem('NOT_FOUND', `no listed host "${request.params.slug}"`);
      // A host asked for by name lists its products, stale or not: its answer says whether it is.
      return {
        host,
        ...(await listing({ ...request.query, host: host.slug, include_stale: '1' }, { hostSlug: host.slug })),
      };
    },
  );

  app.get<{ Querystring: Static<typeof ProductsQuery> }>(
    '/api/v1/directory/products',
    {
      schema: {
        tags: TAGS,
        operationId: 'searchDirectoryProducts',
        summary: 'Search listed products across hosts',
        querystring: ProductsQuery,
        response: { 200: json('one page of products', ProductsPage) },
      },
    },
    async (request) => {
      const category = given(request.query.category);
      return listing(request.query, category === undefined ? {} : { category }, request.query.count === true);
    },
  );

  app.get<{ Params: Static<typeof ProductParams>; Querystring: Static<typeof ProductQuery> }>(
    '/api/v1/directory/products/:id',
    {
      schema: {
        tags: TAGS,
        operationId: 'getDirectoryProduct',
        summary: 'One listed product',
        params: ProductParams,
        querystring: ProductQuery,
        response: { 200: json('the product', ProductAnswer) },
      },
    },
    async (request) => {
      const found = await findPricedProduct(
        context.directory,
        request.params.id,
        freshnessOf(staleAfterDays, true),
        dayBefore(PRICE_DROP_DAYS),
      );
      if (!found) throw new Problem('NOT_FOUND', `no listed product "${request.params.id}"`);
      const { product, prices } = found;
      const display = request.query.display_currency;
      const view = priceView({ display }, context.config.displayCurrency, prices.rates, true);
      return { product: pricedProduct(product, view), display_currency: view.currency };
    },
  );

  app.get<{ Params: Static<typeof ProductParams>; Querystring: Static<typeof AlternativesQuery> }>(
    '/api/v1/directory/products/:id/alternatives',
    {
      schema: {
        tags: TAGS,
        operationId: 'getDirectoryProductAlternatives',
        summary: 'Cheaper plans of other providers with at least the same RAM, cores and disk',
        params: ProductParams,
        querystring: AlternativesQuery,
        response: { 200: json("the product's cheaper alternatives", AlternativesAnswer) },
      },
    },
    async (request) => {
      const freshness = freshnessOf(staleAfterDays, false);
      const dropsSince = dayBefore(PRICE_DROP_DAYS);
      const found = await findPricedProduct(
        context.directory,
        request.params.id,
        freshnessOf(staleAfterDays, true),
        dropsSince,
      );
      if (!found) throw new Problem('NOT_FOUND', `no listed product "${request.params.id}"`);
      const { product, prices } = found;
      const display = request.query.display_currency;
      const view = priceView({ display }, context.config.displayCurrency, prices.rates, true);
      const alternatives = await cheaperAlternatives(context.directory, product, {
        freshness,
        dropsSince,
        limit: request.query.limit ?? 10,
      });
      return {
        product_id: product.id,
        alternatives: alternatives.map((alternative) => pricedProduct(alternative, view)),
        display_currency: view.currency,
      };
    },
  );

  app.get<{ Params: Static<typeof ProductParams> }>(
    '/api/v1/directory/products/:id/price-history',
    {
      schema: {
        tags: TAGS,
        operationId: 'getDirectoryProductPriceHistory',
        summary: "A listed product's prices over time, as its provider's syncs changed them",
        params: ProductParams,
        response: { 200: json("the product's prices over time", PriceHistoryAnswer) },
      },
    },
    async (request) => {
      const history = await listedPriceHistory(context.directory, request.params.id);
      if (!history) throw new Problem('NOT_FOUND', `no listed product "${request.params.id}"`);
      return { product_id: request.params.id, ...history };
    },
  );
};
