// Liveness and readiness probes for load balancers and orchestrators.
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { Problem, retryAfter } from '../problems.js';
import { ALWAYS, json, Liveness, problem, Readiness } from '../schemas.js';

export const healthRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const probe = { tags: ['public'], security: [] };
  app.get(
    '/healthz',
    { schema: { ...probe, operationId: 'liveness', summary: 'Liveness: the process runs', response: { 200: json('alive', Liveness), ...ALWAYS } } },
    async () => ({ status: 'ok' }),
  );

  const readiness = {
    ...probe,
    operationId: 'readiness',
    summary: 'Readiness: the database is reachable and the server is not stopping',
    response: { 200: json('ready', Readiness), 400: ALWAYS[400], 500: ALWAYS[500], 503: problem(['SERVICE_UNAVAILABLE'], ['retry-after']) },
  };
  app.get('/readyz', { schema: readiness }, async () => {
    if (context.lifecycle.closing) {
      throw new Problem('SERVICE_UNAVAILABLE', 'the server is shutting down', { headers: retryAfter() });
    }
    if (!context.lifecycle.prepared) {
      throw new Problem('SERVICE_UNAVAILABLE', 'the database has not been reached yet, or its migrations have not run', { headers: retryAfter() });
    }
    try {
      await context.db.query('SELECT 1');
    } catch {
      throw new Problem('SERVICE_UNAVAILABLE', 'the database is unreachable', { headers: retryAfter() });
    }
    return { status: 'ready', store: context.db.kind };
  });
};
