// Comparing plans side by side: the page (/compare) and its JSON (/api/v1/directory/compare), from the same rows.
import { Type, type Static } from '@sinclair/typebox';
import type {} from '@fastify/swagger';
import type { FastifyPluginAsync } from 'fastify';
import { idPattern } from '../../catalog/ids.js';
import { listCategories } from '../../store/categories.js';
import { findListedProducts } from '../../store/directory/listed-product.js';
import { currentRates } from '../../store/rates.js';
import { priceView, pricedProduct } from '../listed-prices.js';
import { dayBefore, freshnessOf } from '../../store/freshness.js';
import { PRICE_DROP_DAYS } from '../directory-query.js';
import { COMPARE_MAX, comparePage, compareRows } from '../../web/compare.js';
import type { AppContext } from '../context.js';
import { Problem } from '../problems.js';
import { json } from '../schemas.js';
import { ProductDetailSchema } from './directory.js';

const PRODUCT_ID = new RegExp(idPattern('prd'));

const CompareQuery = Type.Object({
  ids: Type.Union([Type.String({ maxLength: 1000 }), Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 50 })], {
    description: `product ids, comma-separated or repeated (ids=a&ids=b, as a form of checkboxes sends them); 1 to ${COMPARE_MAX}`,
  }),
});

const CompareAnswer = Type.Object(
  {
    products: Type.Array(Type.Ref(ProductDetailSchema), { description: 'the listed products among ids, in the order asked' }),
    rows: Type.Array(
      Type.Object(
        {
          key: Type.String({ description: 'provider, category, monthly_price, setup_fee, contract_duration, a spec key of the vocabulary, locations, features' }),
          label: Type.String(),
          values: Type.Array(Type.Union([Type.String(), Type.Null()]), { description: "one per product, as the page shows it; null: the plan does not say" }),
        },
        { additionalProperties: false },
      ),
    ),
    missing: Type.Array(Type.String(), { description: 'ids asked for that are not listed (any more): withdrawn, or never were' }),
  },
  { $id: 'ComparedProducts', additionalProperties: false },
);

/** The compare answer's named schema, for the OpenAPI document's components. */
export const COMPARE_SCHEMAS = [CompareAnswer];

/** The ids of a compare query, in order, without repeats; what is wrong with them, as problems of the parameter. */
function idsOf(raw: unknown): { ids: string[]; problems: { code: string; detail: string }[] } {
  const parts = (Array.isArray(raw) ? raw : [raw]).flatMap((value) => (typeof value === 'string' ? value.split(',') : []));
  const ids = [...new Set(parts.map((part) => part.trim()).filter(Boolean))];
  const problems: { code: string; detail: string }[] = [];
  const malformed = ids.filter((id) => !PRODUCT_ID.test(id));
  if (ids.length === 0) problems.push({ code: 'required', detail: `name 1 to ${COMPARE_MAX} product ids` });
  if (ids.length > COMPARE_MAX) problems.push({ code: 'maxItems', detail: `at most ${COMPARE_MAX} plans are compared at once; ${ids.length} were given` });
  if (malformed.length > 0) problems.push({ code: 'pattern', detail: `not product ids: ${malformed.slice(0, 5).join(', ')}` });
  return { ids, problems };
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
        findListedProducts(context.directory, ids, freshnessOf(context.config.staleAfterDays, true), dayBefore(PRICE_DROP_DAYS)),
        listCategories(context.directory),
        currentRates(context.directory),
      ]);
      const found = new Set(products.map((product) => product.id));
      // Priced as every product of the directory API is: its true cost, and converted into the default display currency.
      const view = priceView({}, context.config.displayCurrency, rates, false);
      return {
        products: products.map((product) => pricedProduct(product, view)),
        rows: compareRows(products, categories),
        missing: ids.filter((id) => !found.has(id)),
      };
    },
  );

  app.get<{ Querystring: Record<string, unknown> }>('/compare', async (request, reply) => {
    const given = request.query.ids;
    const { ids, problems } = given === undefined || given === '' ? { ids: [], problems: [] } : idsOf(given);
    const ok = problems.length === 0;
    const [products, categories] = await Promise.all([
      ok ? findListedProducts(context.directory, ids, freshnessOf(context.config.staleAfterDays, true), dayBefore(PRICE_DROP_DAYS)) : Promise.resolve([]),
      listCategories(context.directory),
    ]);
    const found = new Set(products.map((product) => product.id));
    const page = comparePage(
      {
        products,
        missing: ok ? ids.filter((id) => !found.has(id)) : [],
        problems: problems.map((problem) => problem.detail.charAt(0).toUpperCase() + problem.detail.slice(1) + '.'),
      },
      categories,
    );
    return reply.status(ok ? 200 : 422).type('text/html; charset=utf-8').send(page.value);
  });
};
