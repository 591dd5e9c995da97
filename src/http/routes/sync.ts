// POST /api/v1/sync/products: the HTTP face of the sync service (src/sync). The hooks and the handler call the
// service and answer its outcomes as http/sync-answers.ts says.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { syncRequestBodySchema } from '../../catalog/product-schema.js';
import { IDEMPOTENCY_KEY_PATTERN, keyDigest } from '../../sync/idempotency.js';
import { mayUseReceipts } from '../../sync/receipts.js';
import { SyncService, type Admission } from '../../sync/service.js';
import { authenticateProviderBy } from '../auth.js';
import { checkBodyHeaders, readBodiesWithin, type ReceivedBody } from '../body.js';
import type { AppContext } from '../context.js';
import { countProducts, syncOutcome } from '../metrics.js';
import { Problem } from '../problems.js';
import { recordRefusalReport, type RefusalReport } from '../../store/sync-runs.js';
import {
  ALWAYS,
  json,
  nativeJsonSerializer,
  problem,
  PROVIDER_AUTH,
  PROVIDER_SECURITY,
  SyncAnswer,
} from '../schemas.js';
import { answerTo, refusalOf, syncAnswers, tooManyRefused, WINDOW_HEADERS, windowHeaders } from '../sync-answers.js';

/** The answers that count against a host's budget of refused requests. */
const REFUSALS = new Set([413, 415, 422]);

const DRY_RUN_VALUES = ['true', 'false', '1', '0'] as const;
const SyncQuery = Type.Object({
  dry_run: Type.Optional(
    Type.Union(
      DRY_RUN_VALUES.map((value) => Type.Literal(value)),
      {
        description: 'true (or 1): validate and answer with the plan, changing nothing; dry runs have their own window',
      },
    ),
  ),
});
const SyncHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'optional; 1–255 visible ASCII characters, e.g. a UUID. Kept 24 hours per provider with a fingerprint of the ' +
        'request: a retry with the same key and body gets the first answer (200 or 422) again with ' +
        'Idempotent-Replayed: true, is not rate limited and applies nothing twice',
    }),
  ),
});

/** The one reading of ?dry_run. Any other parameter (a typo such as ?dryrun=true) or value is a 422, whatever the window holds. */
function dryRunOf(request: FastifyRequest): boolean | Problem {
  const query = request.query as Record<string, unknown>;
  const unknown = Object.keys(query).filter((name) => name !== 'dry_run');
  if (unknown.length > 0) {
    const errors = unknown.slice(0, 10).map((name) => ({
      parameter: name,
      code: 'unknown_field',
      detail: 'unknown query parameter; the only one is dry_run',
    }));
    return new Problem('VALIDATION_FAILED', `${unknown.length} problem(s) in the request`, { errors });
  }
  if (query.dry_run === undefined || query.dry_run === 'false' || query.dry_run === '0') return false;
  if (query.dry_run === 'true' || query.dry_run === '1') return true;
  const detail = `must be one of: ${DRY_RUN_VALUES.join(', ')} (given once)`;
  return new Problem('VALIDATION_FAILED', '1 problem(s) in the request', {
    errors: [{ parameter: 'dry_run', code: 'enum', detail }],
  });
}

/** What a provider's dashboard shows of a refused sync: the problem's code, detail and errors, as answered. */
function refusalReportOf(status: number, dryRun: boolean, payload: unknown): Omit<RefusalReport, 'refused_at'> | null {
  if (typeof payload !== 'string' || payload.length > 1024 * 1024) return null;
  try {
    const body = JSON.parse(payload) as { code?: unknown; detail?: unknown; errors?: unknown };
    if (typeof body.code !== 'string') return null;
    return {
      dry_run: dryRun,
      status,
      code: body.code,
      detail: String(body.detail ?? ''),
      errors: Array.isArray(body.errors) ? (body.errors as RefusalReport['errors']) : [],
    };
  } catch {
    return null;
  }
}

export const syncRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { config, metrics, db } = context;
  const sync = new SyncService({
    db: context.db,
    config,
    instanceId: context.instanceId,
    slots: context.syncSlots,
    answers: syncAnswers,
  });
  readBodiesWithin(app, config);

  app.post<{ Querystring: Static<typeof SyncQuery>; Headers: Static<typeof SyncHeaders> }>(
    '/api/v1/sync/products',
    {
      serializerCompiler: nativeJsonSerializer,
      schema: {
        operationId: 'syncProducts',
        summary: "Replace the provider's catalogue",
        description:
          'The body is the complete catalogue: products are created, updated, reactivated, and active products left ' +
          'out are deactivated, in one transaction. At most SYNC_MAX_PER_WINDOW applied syncs per SYNC_WINDOW_SECONDS. ' +
          'The body may be sent with Content-Encoding: gzip; MAX_BODY_BYTES applies to the decoded size.',
        tags: ['sync'],
        security: PROVIDER_SECURITY,
        querystring: SyncQuery,
        headers: SyncHeaders,
        documentedBody: syncRequestBodySchema(config.maxProducts),
        response: {
          200: json('the plan, applied (or, for a dry run, not)', SyncAnswer, [
            ...WINDOW_HEADERS,
            'idempotent-replayed',
          ]),
          ...PROVIDER_AUTH,
          409: problem(['IDEMPOTENCY_KEY_IN_USE'], WINDOW_HEADERS),
          413: problem(['PAYLOAD_TOO_LARGE'], WINDOW_HEADERS),
          415: problem(['UNSUPPORTED_MEDIA_TYPE'], WINDOW_HEADERS),
          422: problem(['VALIDATION_FAILED', 'IDEMPOTENCY_KEY_REUSED'], [...WINDOW_HEADERS, 'idempotent-replayed']),
          429: problem(['RATE_LIMITED'], [...WINDOW_HEADERS, 'retry-after']),
          ...ALWAYS,
        },
      },
      // Steps 1 and 2 of the contract, and the key's claim, before a byte of the body is read; then steps 3 and 4
      // as far as the headers tell, so that a client waiting for 100 Continue is refused first.
      onRequest: async (request, reply) => {
        const startedAt = new Date();
        const dryRun = dryRunOf(request);
        const length = Number(request.headers['content-length']);
        const encoded = (request.headers['content-encoding'] ?? 'identity') !== 'identity';
        const receipts = mayUseReceipts(Number.isInteger(length) ? length : null, encoded);
        const caller = await authenticateProviderBy(request, (digest) =>
          sync.findCaller(digest, dryRun === true, receipts),
        );
        request.provider = caller;
        if (sync.refusedTooOften(caller)) throw tooManyRefused(config, caller.refusals);
        if (dryRun instanceof Problem) throw dryRun;
        reply.headers(windowHeaders(sync.windowOf(dryRun), caller.usage));
        request.syncAdmission = await sync.admit(caller, {
          dryRun,
          idempotencyKey: keyDigest(request.headers['idempotency-key']),
          startedAt,
        });
        const refusal = refusalOf(request.syncAdmission);
        if (refusal) throw refusal;
        checkBodyHeaders(request.raw, config.maxBodyBytes);
      },
      // Any answer not kept for the key (401…, 413, 415, 429, 5xx) frees it, and a refusal counts against the host's
      // budget of refusals (a replayed one was counted the first time), before it goes out: a client that sends its
      // next request once it has this answer finds the budget as this one left it.
      onSend: async (request, reply, payload) => {
        if (request.syncAdmission) {
          await sync
            .release(request.syncAdmission)
            .catch((error: unknown) =>
              request.log.warn({ err: error }, 'could not release an Idempotency-Key; its lease will'),
            );
        }
        if (
          request.provider &&
          REFUSALS.has(reply.statusCode) &&
          reply.getHeader('idempotent-replayed') === undefined
        ) {
          await sync
            .recordRefusal(request.provider.hostId)
            .catch((error: unknown) => request.log.warn({ err: error }, 'could not record a refused request'));
          const report = refusalReportOf(reply.statusCode, dryRunOf(request) === true, payload);
          if (report) {
            const kept = recordRefusalReport(db, request.provider.hostId, report).catch((error: unknown) =>
              request.log.warn({ err: error }, 'could not keep the report of a refused request'),
            );
            // A 422's report is kept before it is answered, so that the dashboard shows it as soon as the client has
            // it; a body cut off (413, 415) is answered at once, before its connection closes.
            if (reply.statusCode === 422) await kept;
          }
        }
        return payload;
      },
      onResponse: async (request, reply) => {
        metrics.syncs.inc({ outcome: syncOutcome(reply.statusCode, dryRunOf(request) === true) });
      },
    },
    async (request, reply) => {
      const body = request.body as ReceivedBody | undefined;
      if (body === undefined)
        throw new Problem('UNSUPPORTED_MEDIA_TYPE', 'send the catalogue as an application/json body');
      const outcome = await sync.run(request.syncAdmission!, body, {
        id: request.id,
        instance: request.url.split('?')[0] ?? '',
        log: request.log,
      });
      if (outcome.kind === 'applied' && !outcome.dryRun) countProducts(metrics, outcome.summary);
      const answer = answerTo(outcome, config.lockTimeoutMs);
      if (answer instanceof Problem) throw answer;
      return reply.status(answer.status).headers(answer.headers).send(answer.body);
    },
  );
};

declare module 'fastify' {
  interface FastifyRequest {
    /** the sync service's admission of the request, from its onRequest hook on */
    syncAdmission?: Admission;
  }
}
