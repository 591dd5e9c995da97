// POST /api/v1/sync/products: authenticate, peek at the rate limit, read, validate, plan and apply, answer.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { validateCatalogue } from '../../catalog/validate.js';
import { categorySlugs } from '../../store/categories.js';
import { runSync } from '../../store/sync.js';
import { windowUsage, type WindowUsage } from '../../store/sync-runs.js';
import { authenticateProvider } from '../auth.js';
import { BodyMemory, readJsonBody } from '../body.js';
import type { AppContext } from '../context.js';
import { countProducts, syncOutcome } from '../metrics.js';
import { Problem } from '../problems.js';

const SyncQuery = Type.Object({
  dry_run: Type.Optional(Type.Boolean()),
});

/** Seconds a sync turned away by a full sync queue is asked to wait. */
const BUSY_RETRY_SECONDS = 5;

interface WindowPolicy {
  name: 'sync' | 'dry-run';
  max: number;
  seconds: number;
}

function rateLimitHeaders(reply: FastifyReply, policy: WindowPolicy, usage: WindowUsage): void {
  reply.header('ratelimit-policy', `"${policy.name}";q=${policy.max};w=${policy.seconds}`);
  reply.header('ratelimit', `"${policy.name}";r=${Math.max(0, policy.max - usage.used)};t=${usage.freesInSeconds}`);
}

function rateLimited(policy: WindowPolicy, usage: WindowUsage): Problem {
  const retryAfter = Math.max(1, usage.freesInSeconds);
  return new Problem(
    'RATE_LIMITED',
    `at most ${policy.max} ${policy.name === 'sync' ? 'applied sync' : 'dry run'}(s) per ${policy.seconds} s; retry in ${retryAfter} s`,
    { headers: { 'retry-after': String(retryAfter) } },
  );
}

declare module 'fastify' {
  interface FastifyRequest {
    syncStartedAt?: Date;
  }
}

export const syncRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { config, db, metrics, syncSlots } = context;
  const policyFor = (dryRun: boolean): WindowPolicy =>
    dryRun
      ? { name: 'dry-run', max: config.dryRunMaxPerWindow, seconds: config.syncWindowSeconds }
      : { name: 'sync', max: config.syncMaxPerWindow, seconds: config.syncWindowSeconds };
  const isDryRun = (query: unknown) => (query as { dry_run?: unknown }).dry_run === 'true' || (query as { dry_run?: unknown }).dry_run === true;

  // This scope reads its own bodies: media type, streaming size limit, gzip and strict UTF-8 (body.ts), within
  // the process's budget of body memory, which a request gives back once it is answered (or its client is gone).
  const bodyMemory = new BodyMemory(config.maxBodyBytesInFlight);
  app.addHook('onRequest', async (request, reply) => {
    reply.raw.once('close', () => bodyMemory.release(request));
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', async (request: FastifyRequest, payload: import('node:stream').Readable) =>
    readJsonBody(request.raw, payload, { maxBytes: config.maxBodyBytes, memory: { budget: bodyMemory, holder: request } }),
  );

  app.post<{ Querystring: Static<typeof SyncQuery> }>(
    '/api/v1/sync/products',
    {
      schema: { querystring: SyncQuery },
      // Steps 1 and 2 of the contract, before a byte of the body is read.
      onRequest: async (request, reply) => {
        request.syncStartedAt = new Date();
        const provider = await authenticateProvider(db, request);
        request.provider = provider;
        const policy = policyFor(isDryRun(request.query));
        const usage = await windowUsage(db, provider.hostId, { dryRun: policy.name === 'dry-run', seconds: policy.seconds, max: policy.max });
        rateLimitHeaders(reply, policy, usage);
        if (usage.used >= policy.max) throw rateLimited(policy, usage);
      },
      onResponse: async (request, reply) => {
        metrics.syncs.inc({ outcome: syncOutcome(reply.statusCode, isDryRun(request.query)) });
      },
    },
    async (request, reply) => {
      const provider = request.provider!;
      if (request.body === undefined) throw new Problem('UNSUPPORTED_MEDIA_TYPE', 'send the catalogue as an application/json body');
      const dryRun = request.query.dry_run === true;
      const policy = policyFor(dryRun);

      const validation = validateCatalogue(request.body, {
        categories: await categorySlugs(db),
        defaultCurrency: provider.defaultCurrency,
        maxProducts: config.maxProducts,
      });
      if (!validation.ok) {
        const count = validation.truncated ? `more than ${validation.errors.length}` : String(validation.errors.length);
        throw new Problem('VALIDATION_FAILED', `${count} problem(s) in the payload; nothing was changed`, {
          errors: validation.errors,
          ...(validation.truncated ? { truncated: true } : {}),
        });
      }

      const slot = await syncSlots.run(() =>
        runSync(db, {
          hostId: provider.hostId,
          keyId: provider.keyId,
          requestId: request.id,
          dryRun,
          products: validation.products,
          window: { seconds: policy.seconds, max: policy.max },
          startedAt: request.syncStartedAt ?? new Date(),
          lockTimeoutMs: config.lockTimeoutMs,
        }),
      );
      if (slot === null) {
        throw new Problem('SERVICE_UNAVAILABLE', 'too many syncs are waiting on this server; nothing was changed', {
          headers: { 'retry-after': String(BUSY_RETRY_SECONDS) },
        });
      }
      const outcome = slot.value;
      if (outcome.kind === 'refused') throw new Problem('KEY_REVOKED', 'the API key was revoked or its provider suspended');
      if (outcome.kind === 'busy') {
        // Another sync of this host has held the host for LOCK_TIMEOUT_MS; it will most likely take the slot.
        throw new Problem('RATE_LIMITED', 'another sync of this host is still being applied; nothing was changed', {
          headers: { 'retry-after': String(Math.max(1, Math.ceil(config.lockTimeoutMs / 1000))) },
        });
      }
      rateLimitHeaders(reply, policy, outcome.usage);
      if (outcome.kind === 'rate_limited') throw rateLimited(policy, outcome.usage);

      const { plan } = outcome;
      if (!dryRun) countProducts(metrics, plan.summary);
      return {
        sync_id: outcome.syncId,
        dry_run: dryRun,
        host: provider.hostSlug,
        summary: plan.summary,
        products: plan.products.map((p) => ({ external_id: p.external_id, id: p.id, action: p.action })),
        deactivated: plan.deactivated,
        applied_at: outcome.appliedAt,
        duration_ms: outcome.durationMs,
      };
    },
  );
};
