// The API's answers as TypeBox schemas: Fastify serializes responses with them and the OpenAPI document is
// generated from them, so what is documented is what is sent.
import { Type, type TSchema } from '@sinclair/typebox';
import { idPattern } from '../catalog/ids.js';
import { ProductOutput } from '../catalog/product-schema.js';
import { SyncAnswerSchema, SyncSummarySchema } from '../sync/answer.js';
import { PROBLEM_BASE, PROBLEM_TYPES, type ProblemCode } from './problems.js';

const Timestamp = Type.String({ format: 'date-time' });
const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'pass it back as `cursor` for the next page; null on the last page',
});

// --- headers --------------------------------------------------------------------------------------------------

const header = (description: string, pattern?: string) => ({ type: 'string', description, ...(pattern ? { pattern } : {}) });

export const HEADERS = {
  'x-request-id': header("the request's id: the caller's X-Request-Id if it was sane, else a new one; also in the server's log"),
  'ratelimit-policy': header('the sync window, e.g. "sync";q=1;w=300 (draft-ietf-httpapi-ratelimit-headers)'),
  ratelimit: header('what is left of the window, e.g. "sync";r=0;t=287: r remaining, t seconds until a slot frees'),
  'retry-after': header('whole seconds to wait before retrying', '^[1-9][0-9]*$'),
  'www-authenticate': header('Bearer realm="hostdir"'),
  'idempotent-replayed': header('"true" when this is the stored answer of an earlier request with the same Idempotency-Key', '^true$'),
} as const;

type HeaderName = keyof typeof HEADERS;

function headersOf(names: readonly HeaderName[]): Record<string, (typeof HEADERS)[HeaderName]> {
  const out: Record<string, (typeof HEADERS)[HeaderName]> = { 'x-request-id': HEADERS['x-request-id'] };
  for (const name of names) out[name] = HEADERS[name];
  return out;
}

// --- problems -------------------------------------------------------------------------------------------------

const ProblemEntry = Type.Object(
  {
    pointer: Type.Optional(Type.String({ description: 'RFC 6901 JSON Pointer into the request body' })),
    parameter: Type.Optional(Type.String({ description: 'the query parameter or request header at fault' })),
    code: Type.String(),
    detail: Type.String(),
  },
  { additionalProperties: false },
);

/** An RFC 9457 problem whose `code` is one of `codes`. Extension members beyond those listed are allowed. */
function problemSchema(codes: readonly ProblemCode[]): TSchema {
  const statuses = [...new Set(codes.map((code) => PROBLEM_TYPES[code].status))];
  return Type.Object(
    {
      type: Type.Union(codes.map((code) => Type.Literal(`${PROBLEM_BASE}/${PROBLEM_TYPES[code].slug}`)), {
        description: 'answers GET with a page about the problem',
      }),
      title: Type.String(),
      status: Type.Union(statuses.map((status) => Type.Literal(status))),
      code: Type.Union(codes.map((code) => Type.Literal(code))),
      detail: Type.String(),
      instance: Type.String({ description: 'the request path; "" when the request was not read far enough to know it (malformed HTTP, a timeout)' }),
      request_id: Type.String(),
      errors: Type.Optional(Type.Array(ProblemEntry, { maxItems: 100 })),
      truncated: Type.Optional(Type.Literal(true, { description: 'more than 100 problems were found' })),
      max_bytes: Type.Optional(Type.Integer({ description: 'the size limit that was exceeded' })),
    },
    { description: 'RFC 9457 problem details' },
  );
}

type ResponseSpec = Record<string, unknown>;

/** A documented problem answer: problem+json, with the headers that come with it. */
export function problem(codes: readonly ProblemCode[], headers: readonly HeaderName[] = []): ResponseSpec {
  const description = codes.map((code) => `${code}: ${PROBLEM_TYPES[code].title}`).join('; ');
  return {
    description,
    headers: headersOf(headers),
    content: { 'application/problem+json': { schema: problemSchema(codes) } },
  };
}

export function json(description: string, schema: TSchema, headers: readonly HeaderName[] = []): ResponseSpec {
  return { description, headers: headersOf(headers), content: { 'application/json': { schema } } };
}

/** The answers every route may give whatever it does: malformed HTTP, a bug, an unreachable database, a stopping server. */
export const ALWAYS = {
  400: problem(['BAD_REQUEST']),
  408: problem(['REQUEST_TIMEOUT']),
  417: problem(['EXPECTATION_FAILED']),
  431: problem(['HEADERS_TOO_LARGE']),
  500: problem(['INTERNAL_ERROR']),
  503: problem(['SERVICE_UNAVAILABLE'], ['retry-after']),
} as const;

/** What any route with an API key adds. */
export const PROVIDER_AUTH = {
  401: problem(['UNAUTHORIZED'], ['www-authenticate']),
  403: problem(['KEY_REVOKED']),
  /** too many failed authentications from the client's address */
  429: problem(['RATE_LIMITED'], ['retry-after']),
} as const;

export const PROVIDER_SECURITY = [{ apiKey: [] }];

// --- bodies ---------------------------------------------------------------------------------------------------

/**
 * Serializer of the answers that list every product of a sync (up to MAX_PRODUCTS entries): they are built field
 * by field from SyncAnswer's own fields (sync/answer.ts), so JSON.stringify gives the same text, several times faster
 * than fast-json-stringify on 50 000 entries (about 60 ms against 300 ms here). The end-to-end tests hold the text to
 * the schema.
 */
export const nativeJsonSerializer = () => (data: unknown) => JSON.stringify(data);

/** The answer of a sync, and a run of the history with its per-product actions. */
export const SyncAnswer = SyncAnswerSchema;

const SyncRunSummary = Type.Object(
  {
    sync_id: Type.String({ pattern: idPattern('syn') }),
    dry_run: Type.Boolean(),
    applied_at: Timestamp,
    duration_ms: Type.Integer({ minimum: 0 }),
    summary: SyncSummarySchema,
  },
  { additionalProperties: false },
);

export const SyncRunsPage = Type.Object(
  { runs: Type.Array(SyncRunSummary, { description: 'newest first' }), next_cursor: NextCursor },
  { additionalProperties: false },
);

export const ProductsPage = Type.Object(
  { products: Type.Array(ProductOutput), next_cursor: NextCursor },
  { additionalProperties: false },
);

export const Categories = Type.Object(
  {
    categories: Type.Array(
      Type.Object({ slug: Type.String(), label: Type.String() }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

export const Liveness = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });

export const Readiness = Type.Object(
  { status: Type.Literal('ready'), store: Type.Union([Type.Literal('postgres'), Type.Literal('embedded')]) },
  { additionalProperties: false },
);

export const ProblemPage = Type.Object(
  {
    type: Type.String(),
    code: Type.String(),
    status: Type.Integer(),
    title: Type.String(),
    description: Type.String(),
  },
  { additionalProperties: false },
);
