// POST /api/v1/sync/products: authenticate, peek at the rate limit, claim the Idempotency-Key, read, validate,
// plan and apply, answer (and keep the answer for the key's retries).
import { createHash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { syncRequestBodySchema } from '../../catalog/product-schema.js';
import { Receipts, receiptsContext, RECEIPTS_MIN_BODY_BYTES } from '../../catalog/receipts.js';
import type { CatalogueProduct } from '../../catalog/types.js';
import { StaleReceiptError, validateCatalogue, validateCatalogueJson, type ValidateOptions, type ValidationResult } from '../../catalog/validate.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  type IdempotencyPolicy,
  type StoredAnswer,
} from '../../store/idempotency.js';
import { findSyncCaller, IdempotencyClaimLostError, runSync, type AppliedSync, type ReceiptsUse, type StoredReceipts, type SyncCaller } from '../../store/sync.js';
import { findSyncRun, recordRefusal, type WindowUsage } from '../../store/sync-runs.js';
import { isUnavailable } from '../../store/db.js';
import { authenticateProviderBy } from '../auth.js';
import { BodyMemory, checkBodyHeaders, parseJsonBody, readJsonBodyWithDigest, type ReceivedBody } from '../body.js';
import type { AppContext } from '../context.js';
import { countProducts, syncOutcome } from '../metrics.js';
import { Problem, problemBody } from '../problems.js';
import { ALWAYS, IDEMPOTENCY_KEY_PATTERN, json, problem, PROVIDER_AUTH, PROVIDER_SECURITY, SyncAnswer, nativeJsonSerializer } from '../schemas.js';

const DRY_RUN_VALUES = ['true', 'false', '1', '0'] as const;

const SyncQuery = Type.Object({
  dry_run: Type.Optional(
    Type.Union(DRY_RUN_VALUES.map((value) => Type.Literal(value)), {
      description: 'true (or 1): validate and answer with the plan, changing nothing; dry runs have their own window',
    }),
  ),
});

/**
 * The one reading of ?dry_run, for the hook that peeks at the window and for the handler alike: absent, true,
 * false, 1 or 0. Anything else is a Problem, answered after authentication and before the window is looked at, so
 * that a malformed query gets the same 422 whatever the window holds.
 */
export function dryRunOf(query: unknown): boolean | Problem {
  const parameters = query as Record<string, unknown>;
  // A typo such as ?dryrun=true would otherwise apply a catalogue its sender only meant to try.
  const unknown = Object.keys(parameters).filter((name) => name !== 'dry_run');
  if (unknown.length > 0) {
    return new Problem('VALIDATION_FAILED', `${unknown.length} problem(s) in the request`, {
      errors: unknown.slice(0, 10).map((name) => ({ parameter: name, code: 'unknown_field', detail: 'unknown query parameter; the only one is dry_run' })),
    });
  }
  const value = parameters.dry_run;
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  return new Problem('VALIDATION_FAILED', '1 problem(s) in the request', {
    errors: [{ parameter: 'dry_run', code: 'enum', detail: `must be one of: ${DRY_RUN_VALUES.join(', ')} (given once)` }],
  });
}

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


interface WindowPolicy {
  name: 'sync' | 'dry-run';
  max: number;
  seconds: number;
}

/** Seconds a sync turned away by a full sync queue is asked to wait. */
const BUSY_RETRY_SECONDS = 5;

const RATE_LIMIT_HEADERS = ['ratelimit', 'ratelimit-policy'] as const;

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
    syncCaller?: SyncCaller;
    idempotency?: IdempotencyState;
  }
}

type IdempotencyState =
  /** this request holds the key; until `settled`, the claim is released when the answer goes out */
  | { key: string; claim: string; settled: boolean }
  /** a request with the key finished: its answer is replayed if the body is the same */
  | { key: string; finished: { fingerprint: string; answer: StoredAnswer } };

/**
 * The Idempotency-Key as the directory keeps it: its SHA-256, never the key as sent, so that a secret pasted into
 * the header by mistake (an API key, say) is not stored. Null when there is none.
 */
function idempotencyKeyOf(request: FastifyRequest): string | null {
  const value = request.headers['idempotency-key'];
  // A malformed key is refused by the header schema once the body is read; it never claims anything.
  if (typeof value !== 'string' || !new RegExp(IDEMPOTENCY_KEY_PATTERN).test(value)) return null;
  return createHash('sha256').update(value).digest('hex');
}

/** What a key remembers of a request: whether it was a dry run, and its decoded body bytes. */
function requestFingerprint(dryRun: boolean, body: ReceivedBody): string {
  return createHash('sha256').update(`${dryRun ? 'dry-run' : 'sync'}\n${body.digest}`).digest('hex');
}

function replay(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  return reply.status(answer.status).header('idempotent-replayed', 'true').send(answer.body);
}

/**
 * The body's catalogue, validated product by product so that the body's whole tree is never built (a 50 000-product
 * body would otherwise be held as bytes, string and tree at once). A body that is not plainly {"products": [...]},
 * or not JSON at all, is parsed whole: that gives JSON.parse's own error, or validateCatalogue's answer to its shape.
 */
function validateBody(bytes: Buffer, options: ValidateOptions, stored: StoredReceipts | null): Validation | Problem {
  if (bytes.length >= RECEIPTS_MIN_BODY_BYTES) {
    // A large catalogue keeps receipts, and uses its host's if they were stored under the same context.
    const context = receiptsContext(options.defaultCurrency, options.categories);
    const usable = stored?.context === context ? stored : null;
    const validation = validateCatalogueJson(bytes, options, { stored: usable ? new Receipts(usable.text) : null });
    if (validation?.ok && validation.digests) {
      const receipts = { context, digests: validation.digests, writtenBy: usable?.writtenBy ?? null, allKnown: validation.allKnown === true };
      return { ...validation, receipts };
    }
    if (validation !== null) return validation;
  } else {
    const validation = validateCatalogueJson(bytes, options);
    if (validation !== null) return validation;
  }
  const parsed = parseJsonBody(bytes);
  return parsed.ok ? validateCatalogue(parsed.value, options) : parsed.problem;
}

type Validation = ValidationResult | { ok: true; products: CatalogueProduct[]; receipts: ReceiptsUse };

/**
 * Whether the request's body may be large enough to use receipts, known from its headers before it is read: a
 * compressed body, or one of unknown length, may be.
 */
function mayUseReceipts(request: FastifyRequest): boolean {
  const length = Number(request.headers['content-length']);
  const encoding = request.headers['content-encoding'];
  return !Number.isInteger(length) || length >= RECEIPTS_MIN_BODY_BYTES || (encoding !== undefined && encoding !== 'identity');
}

function answerBody(hostSlug: string, dryRun: boolean, applied: AppliedSync) {
  const { plan } = applied;
  return {
    sync_id: applied.syncId,
    dry_run: dryRun,
    host: hostSlug,
    summary: plan.summary,
    products: plan.products.map((p) => ({ external_id: p.external_id, id: p.id, action: p.action })),
    deactivated: plan.deactivated,
    applied_at: applied.appliedAt,
    duration_ms: applied.durationMs,
  };
}

/** The answers that count against a host's budget of refused requests (REFUSED_MAX_PER_WINDOW). */
const REFUSALS = new Set([413, 415, 422]);

function tooManyRefused(refusals: WindowUsage, max: number, seconds: number): Problem {
  const wait = Math.max(1, refusals.freesInSeconds);
  return new Problem(
    'RATE_LIMITED',
    `${max} refused requests (413, 415, 422) from this provider in ${seconds} s; fix the catalogue and retry in ${wait} s`,
    {
      headers: {
        'retry-after': String(wait),
        'ratelimit-policy': `"refused";q=${max};w=${seconds}`,
        ratelimit: `"refused";r=0;t=${wait}`,
      },
    },
  );
}

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

export const syncRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { config, db, metrics, syncSlots } = context;
  const policyFor = (dryRun: boolean): WindowPolicy =>
    dryRun
      ? { name: 'dry-run', max: config.dryRunMaxPerWindow, seconds: config.syncWindowSeconds }
      : { name: 'sync', max: config.syncMaxPerWindow, seconds: config.syncWindowSeconds };
  const isDryRun = (query: unknown) => dryRunOf(query) === true;
  const idempotencyPolicy: IdempotencyPolicy = {
    ttlSeconds: config.idempotencyKeyTtlSeconds,
    // Longer than a request may take (120 s to send its body, then validation and the transaction), so that only
    // a claim left by a process that died is taken over; were a live one taken, its transaction would roll back.
    leaseSeconds: config.idempotencyLeaseSeconds,
    maxKeysPerHost: config.idempotencyMaxKeysPerHost,
    maxBytesPerHost: config.idempotencyMaxBytesPerHost,
    instance: context.instanceId,
  };

  // This scope reads its own bodies: media type, streaming size limit, gzip and strict UTF-8 (body.ts), within
  // the process's budget of body memory, which a request gives back once it is answered (or its client is gone).
  const bodyMemory = new BodyMemory(config.maxBodyBytesInFlight, config.maxBodyBytesPerHost);
  app.addHook('onRequest', async (request, reply) => {
    reply.raw.once('close', () => bodyMemory.release(request));
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', async (request: FastifyRequest, payload: import('node:stream').Readable) =>
    readJsonBodyWithDigest(request.raw, payload, {
      maxBytes: config.maxBodyBytes,
      memory: { budget: bodyMemory, holder: request, ...(request.provider ? { group: request.provider.hostId } : {}) },
      minBytesPerSecond: config.minUploadBytesPerS,
      graceMs: config.uploadGraceMs,
    }),
  );

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
          200: json('the plan, applied (or, for a dry run, not)', SyncAnswer, [...RATE_LIMIT_HEADERS, 'idempotent-replayed']),
          ...PROVIDER_AUTH,
          409: problem(['IDEMPOTENCY_KEY_IN_USE'], RATE_LIMIT_HEADERS),
          413: problem(['PAYLOAD_TOO_LARGE'], RATE_LIMIT_HEADERS),
          415: problem(['UNSUPPORTED_MEDIA_TYPE'], RATE_LIMIT_HEADERS),
          422: problem(['VALIDATION_FAILED', 'IDEMPOTENCY_KEY_REUSED'], [...RATE_LIMIT_HEADERS, 'idempotent-replayed']),
          429: problem(['RATE_LIMITED'], [...RATE_LIMIT_HEADERS, 'retry-after']),
          ...ALWAYS,
        },
      },
      // Steps 1 and 2 of the contract, and the key's claim, before a byte of the body is read.
      onRequest: async (request, reply) => {
        request.syncStartedAt = new Date();
        const dryRun = dryRunOf(request.query);
        const policy = policyFor(dryRun === true);
        const window = { dryRun: policy.name === 'dry-run', seconds: policy.seconds, max: policy.max };
        // The key's owner, its window, the category registry and, for a large body, the host's receipts in one query.
        const receipts = mayUseReceipts(request);
        const provider = await authenticateProviderBy(request, (digest) =>
          findSyncCaller(db, digest, window, { receipts, refusalBudget: config.refusedMaxPerWindow }),
        );
        request.provider = provider;
        request.syncCaller = provider;
        // Refused requests have a budget of their own: past it, nothing of this host's is read until it frees.
        if (provider.refusals.used >= config.refusedMaxPerWindow) throw tooManyRefused(provider.refusals, config.refusedMaxPerWindow, config.syncWindowSeconds);
        if (dryRun instanceof Problem) throw dryRun;
        const { usage } = provider;
        rateLimitHeaders(reply, policy, usage);
        const key = idempotencyKeyOf(request);
        if (key !== null) {
          const claim = await claimIdempotencyKey(db, provider.hostId, key, idempotencyPolicy);
          if (claim.kind === 'in_use') {
            throw new Problem('IDEMPOTENCY_KEY_IN_USE', 'a request with this Idempotency-Key is still being processed; retry shortly for its answer');
          }
          if (claim.kind === 'finished') {
            // A retry of a finished request is answered from the record once its body is known to be the same:
            // never rate limited, since it applies nothing.
            request.idempotency = { key, finished: claim };
          } else {
            request.idempotency = { key, claim: claim.claim, settled: false };
          }
        }
        if (!(request.idempotency && 'finished' in request.idempotency) && usage.used >= policy.max) {
          throw rateLimited(policy, usage);
        }
        // Steps 3 and 4 as far as the headers tell, so that a client waiting for 100 Continue is refused first.
        checkBodyHeaders(request.raw, config.maxBodyBytes);
      },
      onResponse: async (request, reply) => {
        metrics.syncs.inc({ outcome: syncOutcome(reply.statusCode, isDryRun(request.query)) });
        // A refusal counts against the host's budget of refusals; a replayed one was counted the first time.
        if (request.provider && REFUSALS.has(reply.statusCode) && reply.getHeader('idempotent-replayed') === undefined) {
          await recordRefusal(db, request.provider.hostId, config.syncWindowSeconds).catch((error: unknown) =>
            request.log.warn({ err: error }, 'could not record a refused request'),
          );
        }
      },
      // Any answer that is not kept for the key (401…, 413, 415, 429, 5xx) frees it before it goes out.
      onSend: async (request, _reply, payload) => {
        const state = request.idempotency;
        if (state && 'claim' in state && !state.settled) {
          state.settled = true;
          await releaseIdempotencyKey(db, request.provider!.hostId, state.key, state.claim).catch((error: unknown) =>
            request.log.warn({ err: error }, 'could not release an Idempotency-Key; its lease will'),
          );
        }
        return payload;
      },
    },
    async (request, reply) => {
      const provider = request.syncCaller!;
      const body = request.body as ReceivedBody | undefined;
      if (body === undefined) throw new Problem('UNSUPPORTED_MEDIA_TYPE', 'send the catalogue as an application/json body');
      const dryRun = isDryRun(request.query);
      const policy = policyFor(dryRun);
      const fingerprint = requestFingerprint(dryRun, body);
      const state = request.idempotency;

      if (state && 'finished' in state) {
        if (state.finished.fingerprint !== fingerprint) {
          throw new Problem('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for another request; use a new key for a new catalogue');
        }
        return replay(reply, state.finished.answer);
      }
      const claimed = state && 'claim' in state ? state : null;

      /** A refused body is an answer too: kept for the key, so that its retry is refused the same way. */
      const refuse = async (refusal: Problem) => {
        if (!claimed) throw refusal;
        const answer: StoredAnswer = {
          status: refusal.status,
          headers: { 'content-type': PROBLEM_TYPE },
          body: JSON.stringify(problemBody(refusal, request)),
        };
        await completeIdempotencyKey(db, provider.hostId, claimed.key, { claim: claimed.claim, fingerprint, answer });
        claimed.settled = true;
        return reply.status(answer.status).type(PROBLEM_TYPE).send(answer.body);
      };

      const options = { categories: provider.categories, defaultCurrency: provider.defaultCurrency, maxProducts: config.maxProducts };
      const bytes = body.takeBytes();
      const validation = validateBody(bytes, options, provider.receipts);
      // While stored receipts vouch for products, the bytes are kept (their products are parsed from them anyway):
      // should a receipt turn out not to hold, the body is validated again in full and the receipts rewritten.
      const revalidation = provider.receipts !== null && bytes.length >= RECEIPTS_MIN_BODY_BYTES ? bytes : null;
      if (validation instanceof Problem) return refuse(validation);
      if (!validation.ok) {
        const count = validation.truncated ? `more than ${validation.errors.length}` : String(validation.errors.length);
        return refuse(
          new Problem('VALIDATION_FAILED', `${count} problem(s) in the payload; nothing was changed`, {
            errors: validation.errors,
            ...(validation.truncated ? { truncated: true } : {}),
          }),
        );
      }

      const serialize = reply.getSerializationFunction('200', 'application/json') as (answer: unknown) => string;
      // Serialized once: the text stored for the key is the text sent.
      let text: string | undefined;
      const toText = (applied: AppliedSync) => (text ??= serialize(answerBody(provider.hostSlug, dryRun, applied)));
      const apply = (checked: Extract<Validation, { ok: true }>) =>
        syncSlots.run(() => runSync(db, {
          hostId: provider.hostId,
          keyId: provider.keyId,
          requestId: request.id,
          dryRun,
          products: checked.products,
          ...('receipts' in checked ? { receipts: checked.receipts } : {}),
          window: { seconds: policy.seconds, max: policy.max },
          startedAt: request.syncStartedAt ?? new Date(),
          lockTimeoutMs: config.lockTimeoutMs,
          ...(claimed
            ? {
                idempotency: {
                  key: claimed.key,
                  claim: claimed.claim,
                  fingerprint,
                  answerOf: (applied: AppliedSync) => ({ status: 200, headers: { 'content-type': JSON_TYPE }, body: toText(applied) }),
                },
              }
            : {}),
        }));
      let slot;
      try {
        try {
          slot = await apply(validation);
        } catch (error) {
          if (!(error instanceof StaleReceiptError) || revalidation === null) throw error;
          // The transaction rolled back: nothing of the first attempt remains, its answer text included.
          request.log.warn({ product: error.index }, 'a stored receipt no longer holds; the catalogue is validated in full');
          text = undefined;
          const full = validateBody(revalidation, options, null);
          if (full instanceof Problem || !full.ok) throw error;
          slot = await apply(full);
        }
      } catch (error) {
        if (error instanceof IdempotencyClaimLostError) {
          throw new Problem('IDEMPOTENCY_KEY_IN_USE', 'another request took over this Idempotency-Key; nothing was changed');
        }
        // Failures of the database before COMMIT was sent, or after it when the run was looked for and is not
        // there: the transaction did not commit.
        if (isUnavailable(error)) {
          request.log.warn({ err: error }, 'database unavailable during a sync');
          throw new Problem('SERVICE_UNAVAILABLE', 'the database is unreachable; nothing was changed', {
            headers: { 'retry-after': String(BUSY_RETRY_SECONDS) },
          });
        }
        throw error;
      }
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
      if (outcome.kind === 'outcome_unknown') {
        throw new Problem(
          'SERVICE_UNAVAILABLE',
          'the connection to the database was lost while this sync was being committed, and whether it was applied ' +
            'could not be found out yet. To learn it, send the same request again with the same Idempotency-Key ' +
            `(its answer is replayed if it was applied), or look for sync_id ${outcome.syncId} in GET /api/v1/sync/runs`,
          { headers: { 'retry-after': String(BUSY_RETRY_SECONDS) }, sync_id: outcome.syncId, outcome: 'unknown' },
        );
      }
      if (outcome.kind === 'committed_unseen') {
        // Applied, though the database's answer was lost: the answer is the run as recorded.
        const run = await findSyncRun(db, provider.hostId, outcome.syncId);
        if (!run) throw new Error(`sync run ${outcome.syncId} was seen committed and then not found`);
        if (claimed) claimed.settled = true;
        const { sync_id, dry_run, summary, products, deactivated, applied_at, duration_ms } = run;
        return reply
          .status(200)
          .type(JSON_TYPE)
          .send(JSON.stringify({ sync_id, dry_run, host: provider.hostSlug, summary, products, deactivated, applied_at, duration_ms }));
      }
      rateLimitHeaders(reply, policy, outcome.usage);
      if (outcome.kind === 'rate_limited') throw rateLimited(policy, outcome.usage);
      if (claimed) claimed.settled = true;
      if (!dryRun) countProducts(metrics, outcome.plan.summary);
      return reply.status(200).type(JSON_TYPE).send(toText(outcome));
    },
  );
};
