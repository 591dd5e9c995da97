// The public category registry.
import type { FastifyPluginAsync } from 'fastify';
import { listCategories } from '../../store/categories.js';
import type { AppContext } from '../context.js';
import { ALWAYS, Categories, json } from '../schemas.js';

export const categoryRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const schema = {
    operationId: 'listCategories',
    summary: 'The category registry',
    description: "The slugs a product's category may take.",
    tags: ['public'],
    security: [],
    response: { 200: json('every category', Categories), ...ALWAYS },
  };
  app.get('/api/v1/categories', { schema }, async () => ({ categories: await listCategories(context.directory) }));
};
