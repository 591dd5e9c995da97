// Liveness and readiness probes for load balancers and orchestrators.
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { Problem } from '../problems.js';

export const healthRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    if (context.lifecycle.closing) {
      throw new Problem('SERVICE_UNAVAILABLE', 'the server is shutting down', { headers: { 'retry-after': '5' } });
    }
    try {
      await context.db.query('SELECT 1');
    } catch {
      throw new Problem('SERVICE_UNAVAILABLE', 'the database is unreachable', { headers: { 'retry-after': '5' } });
    }
    return { status: 'ready', store: context.db.kind };
  });
};
