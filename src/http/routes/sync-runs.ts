// A provider's sync history: its runs newest first, and one run with what it did to each product.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { findSyncRun, listSyncRuns } from '../../store/sync-runs.js';
import { answerOfRun } from '../../sync/answer.js';
import { authenticateProvider } from '../auth.js';
import type { AppContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../paging.js';
import { Problem } from '../problems.js';
import {
  ALWAYS,
  json,
  problem,
  PROVIDER_AUTH,
  PROVIDER_SECURITY,
  SyncAnswer,
  SyncRunsPage,
  nativeJsonSerializer,
} from '../schemas.js';

const RunsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'runs per page' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'next_cursor of the previous page' })),
});

const RunParams = Type.Object({ sync_id: Type.String({ maxLength: 100, description: 'syn_…, as a sync answered' }) });

export const syncRunRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { db } = context;
  app.addHook('onRequest', async (request) => {
    request.provider = await authenticateProvider(db, request);
  });

  app.get<{ Querystring: Static<typeof RunsQuery> }>(
    '/api/v1/sync/runs',
    {
      schema: {
        operationId: 'listSyncRuns',
        summary: "The provider's sync runs, newest first",
        description: 'Applied syncs and dry runs, with their counts. Refused requests are not runs.',
        tags: ['sync'],
        security: PROVIDER_SECURITY,
        querystring: RunsQuery,
        response: {
          200: json('one page of runs', SyncRunsPage),
          ...PROVIDER_AUTH,
          422: problem(['VALIDATION_FAILED']),
          ...ALWAYS,
        },
      },
    },
    async (request) => {
      const page = await listSyncRuns(db, request.provider!.hostId, {
        limit: request.query.limit ?? 20,
        beforeId: decodeCursor(request.query.cursor),
      });
      return { runs: page.runs, next_cursor: encodeCursor(page.lastId, page.more) };
    },
  );

  app.get<{ Params: Static<typeof RunParams> }>(
    '/api/v1/sync/runs/:sync_id',
    {
      serializerCompiler: nativeJsonSerializer,
      schema: {
        operationId: 'getSyncRun',
        summary: 'One sync run with what it did to each product',
        description: "The same shape as the sync's answer. Another provider's run answers 404.",
        tags: ['sync'],
        security: PROVIDER_SECURITY,
        params: RunParams,
        response: {
          200: json('the run', SyncAnswer),
          ...PROVIDER_AUTH,
          404: problem(['NOT_FOUND']),
          422: problem(['VALIDATION_FAILED']),
          ...ALWAYS,
        },
      },
    },
    async (request) => {
      const provider = request.provider!;
      const run = await findSyncRun(db, provider.hostId, request.params.sync_id);
      if (!run) throw new Problem('NOT_FOUND', `no sync run "${request.params.sync_id}" for this provider`);
      return answerOfRun(provider.hostSlug, run);
    },
  );
};
