// Comparing plans side by side: the page (/compare) and its JSON (/api/v1/directory/compare), from the same rows.
import { Type, type Static } from '@sinclair/typebox';
import type {} from '@fastify/swagger';
import type { FastifyPluginAsync } from 'fastify';
import { CURRENCY_CODE_PATTERN, STORED_CURRENCY_PATTERN } from '../../catalog/currency.js';
import { idPattern } from '../../catalog/ids.js';
import { BASE_CURRENCY } from '../../catalog/rates.js';
import { listCategories } from '../../store/categories.js';
import { findListedProducts, type ListedProduct } from '../../store/directory/listed-product.js';
import { productNames } from '../../store/products.js';
import { currentRates } from '../../store/rates.js';
import type { Queryable } from '../../store/db.js';
import { priceView, pricedProduct } from '../listed-prices.js';
import { dayBefore, freshnessOf } from '../../store/freshness.js';
import { PRICE_DROP_DAYS } from '../directory-query.js';
import { COMPARE_MAX, comparePage, compareRows, type UnlistedPlan } from '../../web/compare.js';
import type { AppContext } from '../context.js';
import { Problem } from '../problems.js';
import { json } from '../schemas.js';
import { ProductDetailSchema } from './directory.js';
import { redirectToCanonical } from '../page-filters.js';

const PRODUCT_ID = new RegExp(idPattern('prd'));

const CompareQuery = Type.Object({
  ids: Type.Union([Type.String({ maxLength: 1000 }), Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 50 })], {
    description: `product ids, comma-separated or repeated (ids=a&ids=b, as a form of checkboxes sends them); 1 to ${COMPARE_MAX}`,
  }),
  display_currency: Type.Optional(
    Type.String({
      pattern: CURRENCY_CODE_PATTERN,
      description:
        "the currency of the price rows and of `converted`: EUR or one with an exchange rate (422 otherwise); default: the server's DISPLAY_CURRENCY",
    }),
  ),
});

const CompareAnswer = Type.Object(
  {
    products: Type.Array(Type.Ref(ProductDetailSchema), {
      description: 'the listed products among ids, in the order asked',
    }),
    rows: Type.Array(
      Type.Object(
        {
          key: Type.String({
            description:
              'provider, category, monthly_price, yearly_price, first_year_cost, setup_fee, contract_duration, ' +
              'price_per_ram_gb, price_per_cpu_core, price_per_disk_gb, price_per_traffic_tb, price_per_player_slot (the ' +
              'monthly price per unit, in the display currency), a spec key of the vocabulary, locations, features',
          }),
          label: Type.String(),
          values: Type.Array(Type.Union([Type.String(), Type.Null()]), {
            description:
              'one per product, as the page shows it (prices in the display currency); null: the plan does not say',
          }),
          native: Type.Array(Type.Union([Type.String(), Type.Null()]), {
            description:
              "of a price row: each product's own price when its currency is not the display currency; else null",
          }),
          better: Type.Union([Type.Literal('lower'), Type.Literal('higher'), Type.Null()], {
            description: 'lower for prices, higher for the numeric specs; null for a row that is not ranked',
          }),
          best: Type.Array(Type.Integer({ minimum: 0 }), {
            description:
              'positions (in products) of the best value of the row; empty when fewer than two can be ranked or all are equal',
          }),
        },
        { additionalProperties: false },
      ),
    ),
    display_currency: Type.String({
      pattern: STORED_CURRENCY_PATTERN,
      description: 'the currency of the price rows and of every `converted`',
    }),
    missing: Type.Array(Type.String(), {
      description: 'ids asked for that are not listed (any more): withdrawn, or never were',
    }),
    unlisted: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: Type.Union([Type.String(), Type.Null()], {
            description: "the plan's name when the directory had it (a withdrawn plan); null for an id it never had",
          }),
          host: Type.Union([Type.String(), Type.Null()], { description: "its provider's name; null with name" }),
        },
        { additionalProperties: false },
      ),
      { description: 'the missing ids, each with the name it was listed under' },
    ),
  },
  { $id: 'ComparedProducts', additionalProperties: false },
);

/** The compare answer's named schema, for the OpenAPI document's components. */
export const COMPARE_SCHEMAS = [CompareAnswer];

/** The ids of a compare query, in order, without repeats; what is wrong with them, as problems of the parameter. */
function idsOf(raw: unknown): { ids: string[]; problems: { code: string; detail: string }[] } {
  const parts = (Array.isArray(raw) ? raw : [raw]).flatMap((value) =>
    typeof value === 'string' ? value.split(',') : [],
  );
  const ids = [...new Set(parts.map((part) => part.trim()).filter(Boolean))];
  const problems: { code: string; detail: string }[] = [];
  const malformed = ids.filter((id) => !PRODUCT_ID.test(id));
  if (ids.length === 0) problems.push({ code: 'required', detail: `name 1 to ${COMPARE_MAX} product ids` });
  if (ids.length > COMPARE_MAX)
    problems.push({
      code: 'maxItems',
      detail: `at most ${COMPARE_MAX} plans are compared at once; ${ids.length} were given`,
    });
  if (malformed.length > 0)
    problems.push({ code: 'pattern', detail: `not product ids: ${malformed.slice(0, 5).join(', ')}` });
  return { ids, problems };
}

/** The ids asked for that are not among the listed products, named when the directory had them. */
async function unlistedAmong(db: Queryable, ids: string[], listed: ListedProduct[]): Promise<UnlistedPlan[]> {
  const found = new Set(listed.map((product) => product.id));
  const missing = ids.filter((id) => !found.has(id));
  const names = await productNames(db, missing);
  return missing.map((id) => ({ id, name: names.get(id)?.name ?? null, host: names.get(id)?.host ?? null }));
}

export const compareRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  app.get<{ Querystring: Static<typeof CompareQuery> }>(
    '/api/v1/directory/compare',
    {
      schema: {
        tags: ['directory'],
        operationId: 'compareDirectoryProducts',
        summary: `Up to ${COMPARE_MAX} listed products side by side, with rows of their normalized specs`,
        querystring: CompareQuery,
        response: { 200: json('the products side by side', CompareAnswer) },
      },
    },
    async (request) => {
      const { ids, problems } = idsOf(request.query.ids);
      if (problems.length > 0) {
        throw new Problem('VALIDATION_FAILED', problems.map((problem) => problem.detail).join('; '), {
          errors: problems.map((problem) => ({ parameter: 'ids', ...problem })),
        });
      }
      const [products, categories, rates] = await Promise.all([
        findListedProducts(
          context.directory,
          ids,
          freshnessOf(context.config.staleAfterDays, true),
          dayBefore(PRICE_DROP_DAYS),
        ),
        listCategories(context.directory),
        currentRates(context.directory),
      ]);
      // Priced as every product of the directory API is: its true cost, converted into the display currency.
      const view = priceView({ display: request.query.display_currency }, context.config.displayCurrency, rates, true);
      const priced = products.map((product) => pricedProduct(product, view));
      const unlisted = await unlistedAmong(context.directory, ids, products);
      return {
        products: priced,
        rows: compareRows(priced, categories, view.currency),
        display_currency: view.currency,
        missing: unlisted.map((plan) => plan.id),
        unlisted,
      };
    },
  );

  app.get<{ Querystring: Record<string, unknown> }>(
    '/compare',
    { onRequest: redirectToCanonical(context) },
    async (request, reply) => {
      const given = request.query.ids;
      const { ids, problems } = given === undefined || given === '' ? { ids: [], problems: [] } : idsOf(given);
      const ok = problems.length === 0;
      const [products, categories, rates] = await Promise.all([
        ok
          ? findListedProducts(
              context.directory,
              ids,
              freshnessOf(context.config.staleAfterDays, true),
              dayBefore(PRICE_DROP_DAYS),
            )
          : Promise.resolve([]),
        listCategories(context.directory),
        currentRates(context.directory),
      ]);
      const asked =
        typeof request.query.display_currency === 'string'
          ? request.query.display_currency.trim().toUpperCase() || null
          : null;
      // A currency without a rate is shown in EUR, with a note, as on every page.
      const view = priceView({ display: asked ?? undefined }, context.config.displayCurrency, rates, false);
      const page = comparePage(
        {
          products: products.map((product) => pricedProduct(product, view)),
          unlisted: ok ? await unlistedAmong(context.directory, ids, products) : [],
          problems: problems.map((problem) => problem.detail.charAt(0).toUpperCase() + problem.detail.slice(1) + '.'),
          currency: view.currency,
          currencies: [BASE_CURRENCY, ...[...rates.keys()].sort()],
          note: view.note,
          asked: asked !== null && /^[A-Z]{3}$/.test(asked) ? asked : null,
        },
        categories,
      );
      return reply
        .status(ok ? 200 : 422)
        .type('text/html; charset=utf-8')
        .send(page.value);
    },
  );
};
