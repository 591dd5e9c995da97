// Liveness and readiness probes for load balancers and orchestrators.
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { Problem, retryAfter } from '../problems.js';
import { healthProbe } from '../readiness.js';
import { ALWAYS, json, Liveness, problem, Readiness } from '../schemas.js';

/** How long a health query may go unanswered before it is given up: a few checks' worth. */
const HEALTH_QUERY_TIMEOUT_MS = 3_000;

export const healthRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const probe = { tags: ['public'], security: [] };
  app.get(
    '/healthz',
    {
      schema: {
        ...probe,
        operationId: 'liveness',
        summary: 'Liveness: the process runs',
        response: { 200: json('alive', Liveness), ...ALWAYS },
      },
    },
    async () => ({ status: 'ok' }),
  );

  const readiness = {
    ...probe,
    operationId: 'readiness',
    summary: 'Readiness: the database is reachable and the server is not stopping',
    response: {
      200: json('ready', Readiness),
      400: ALWAYS[400],
      500: ALWAYS[500],
      503: problem(['SERVICE_UNAVAILABLE'], ['retry-after']),
    },
  };
  // Named, so that the health query can be told from the others in pg_stat_activity and in a packet capture.
  // Its own bound, far below a request's statement timeout: a health query stuck on a stalled link is given up after
  // it (its connection discarded), and the next check asks again, so that /readyz says 200 soon after the database
  // is back rather than once the stuck query times out.
  const database = healthProbe(() =>
    context.db.query('SELECT 1 AS ready', [], { giveUpAfterMs: HEALTH_QUERY_TIMEOUT_MS }),
  );
  app.get('/readyz', { schema: readiness }, async () => {
    if (context.lifecycle.closing) {
      throw new Problem('SERVICE_UNAVAILABLE', 'the server is shutting down', { headers: retryAfter() });
    }
    if (!context.lifecycle.prepared) {
      throw new Problem(
        'SERVICE_UNAVAILABLE',
        'the database has not been reached yet, or its migrations have not run',
        { headers: retryAfter() },
      );
    }
    const health = await database();
    if (health.state === 'silent') {
      throw new Problem('SERVICE_UNAVAILABLE', `the database has not answered for ${health.forMs} ms`, {
        headers: retryAfter(),
      });
    }
    if (health.state === 'failing') {
      throw new Problem('SERVICE_UNAVAILABLE', 'the database is unreachable', { headers: retryAfter() });
    }
    return { status: 'ready', store: context.db.kind };
  });
};
