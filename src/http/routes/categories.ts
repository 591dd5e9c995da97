// The public category registry.
import type { FastifyPluginAsync } from 'fastify';
import { listCategories } from '../../store/categories.js';
import type { AppContext } from '../context.js';

export const categoryRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  app.get('/api/v1/categories', async () => ({ categories: await listCategories(context.db) }));
};
