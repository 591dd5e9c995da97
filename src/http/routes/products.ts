// A provider's own listing as the directory holds it.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { listProducts } from '../../store/products.js';
import { authenticateProvider } from '../auth.js';
import type { AppContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../paging.js';
import { ALWAYS, json, problem, PROVIDER_AUTH, PROVIDER_SECURITY, ProductsPage } from '../schemas.js';

const ProductsQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal('active'), Type.Literal('inactive'), Type.Literal('all')], { default: 'active' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'products per page' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
});

export const productRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  app.get<{ Querystring: Static<typeof ProductsQuery> }>(
    '/api/v1/products',
    {
      schema: {
        operationId: 'listOwnProducts',
        summary: "The provider's own listing as the directory holds it",
        description:
          'Normalized values: prices as numbers, currency upper case, contract_duration in ISO form, spec values as strings, cleared fields null. In id (creation) order.',
        tags: ['listing'],
        security: PROVIDER_SECURITY,
        querystring: ProductsQuery,
        response: {
          200: json('one page of products', ProductsPage),
          ...PROVIDER_AUTH,
          422: problem(['VALIDATION_FAILED']),
          ...ALWAYS,
        },
      },
      onRequest: async (request) => {
        request.provider = await authenticateProvider(context.db, request);
      },
    },
    async (request) => {
      const page = await listProducts(context.db, request.provider!.hostId, {
        status: request.query.status ?? 'active',
        limit: request.query.limit ?? 100,
        afterId: decodeCursor(request.query.cursor),
      });
      return { products: page.products, next_cursor: encodeCursor(page.lastId, page.more) };
    },
  );
};
