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

const header = (description: string, pattern?: string) => ({
  type: 'string',
  description,
  ...(pattern ? { pattern } : {}),
});

export const HEADERS = {
  'x-request-id': header(
    "the request's id: the caller's X-Request-Id if it was sane, else a new one; also in the server's log",
  ),
  'ratelimit-policy': header('the sync window, e.g. "sync";q=1;w=300 (draft-ietf-httpapi-ratelimit-headers)'),
  ratelimit: header('what is left of the window, e.g. "sync";r=0;t=287: r remaining, t seconds until a slot frees'),
  'retry-after': header('whole seconds to wait before retrying', '^[1-9][0-9]*$'),
  'www-authenticate': header('Bearer realm="hostdir"'),
  'idempotent-replayed': header(
    '"true" when this is the stored answer of an earlier request with the same Idempotency-Key',
    '^true$',
  ),
} as const;

type HeaderName = keyof typeof HEADERS;

function headersOf(names: readonly HeaderName[]): Record<string, (typeof HEADERS)[HeaderName]> {
  const out: Record<string, (typeof HEADERS)[HeaderName]> = { 'x-request-id': HEADERS['x-request-id'] };
  for (const name of names) out[name] = HEADERS[name];
  return out;
}

// --- problems -------------------------------------------------------------------------------------------------

const ProblemError = Type.Object(
  {
    pointer: Type.Optional(Type.String({ description: 'RFC 6901 JSON Pointer into the request body' })),
    parameter: Type.Optional(Type.String({ description: 'the query parameter or request header at fault' })),
    code: Type.String(),
    detail: Type.String(),
  },
  { $id: 'ProblemError', additionalProperties: false, description: 'one thing wrong with the request' },
);

const PROBLEM_CODES = Object.keys(PROBLEM_TYPES) as ProblemCode[];

/** Every problem the API answers with. Extension members beyond those listed are allowed. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'answers GET with a page about the problem' }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    code: Type.Unsafe<ProblemCode>({
      type: 'string',
      enum: PROBLEM_CODES,
      description: 'what went wrong, for programs',
    }),
    detail: Type.String(),
    instance: Type.String({
      description:
        'the request path; "" when the request was not read far enough to know it (malformed HTTP, a timeout)',
    }),
    request_id: Type.String(),
    errors: Type.Optional(Type.Array(Type.Ref(ProblemError), { maxItems: 100 })),
    truncated: Type.Optional(Type.Literal(true, { description: 'more than 100 problems were found' })),
    max_bytes: Type.Optional(Type.Integer({ description: 'the size limit that was exceeded' })),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
);

/** A Problem whose `code` is one of `codes` (and its type and status those codes'). */
function problemSchema(codes: readonly ProblemCode[]): TSchema {
  const statuses = [...new Set(codes.map((code) => PROBLEM_TYPES[code].status))];
  return Type.Intersect([
    Type.Ref(ProblemSchema),
    Type.Object({
      type: Type.Unsafe<string>({
        type: 'string',
        enum: codes.map((code) => `${PROBLEM_BASE}/${PROBLEM_TYPES[code].slug}`),
      }),
      status: Type.Unsafe<number>({ type: 'integer', enum: statuses }),
      code: Type.Unsafe<ProblemCode>({ type: 'string', enum: codes }),
    }),
  ]);
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

/** A JSON answer; a named schema (one with an $id, see NAMED_SCHEMAS) is referred to by its name. */
/**
 * An answer's schema as the serializer and the OpenAPI document get it: every "this or null" (an anyOf of a schema
 * of one JSON type and null) becomes a list of types, `{"type": ["number", "null"]}`, the same JSON Schema. The
 * serializer checks a type list with typeof; an anyOf it checks by validating the value against each branch, which
 * for every nullable field of every product of a page cost more than writing the field.
 */
export function answerSchema<T extends TSchema>(schema: T): T {
  return typeListNulls(JSON.parse(JSON.stringify(schema))) as T;
}

function typeListNulls(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(typeListNulls);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = typeListNulls(value);
  const { anyOf, ...rest } = out as { anyOf?: Record<string, unknown>[] };
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return out;
  const isNull = (branch: Record<string, unknown>) => branch.type === 'null' && Object.keys(branch).length === 1;
  const other = isNull(anyOf[1]!) ? anyOf[0]! : isNull(anyOf[0]!) ? anyOf[1]! : null;
  // Only a schema of one type with nothing that null could not meet (a constant, a list of values).
  if (other === null || typeof other.type !== 'string' || 'const' in other || 'enum' in other) return out;
  return { ...other, ...rest, type: [other.type, 'null'] };
}

export function json(description: string, schema: TSchema, headers: readonly HeaderName[] = []): ResponseSpec {
  const content = schema.$id ? Type.Ref(schema) : answerSchema(schema);
  return { description, headers: headersOf(headers), content: { 'application/json': { schema: content } } };
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

const SyncRun = Type.Object(
  {
    sync_id: Type.String({ pattern: idPattern('syn') }),
    dry_run: Type.Boolean(),
    applied_at: Timestamp,
    duration_ms: Type.Integer({ minimum: 0 }),
    summary: Type.Ref(SyncSummarySchema),
  },
  { $id: 'SyncRun', additionalProperties: false, description: 'one sync run of the history, with its counts' },
);

export const SyncRunsPage = Type.Object(
  { runs: Type.Array(Type.Ref(SyncRun), { description: 'newest first' }), next_cursor: NextCursor },
  { $id: 'SyncRunsPage', additionalProperties: false },
);

export const ProductsPage = Type.Object(
  { products: Type.Array(Type.Ref(ProductOutput)), next_cursor: NextCursor },
  { $id: 'ProductsPage', additionalProperties: false },
);

const Category = Type.Object(
  { slug: Type.String(), label: Type.String() },
  { $id: 'Category', additionalProperties: false, description: 'a category a product may take' },
);

export const Categories = Type.Object(
  { categories: Type.Array(Type.Ref(Category)) },
  { $id: 'Categories', additionalProperties: false },
);

export const Liveness = Type.Object({ status: Type.Literal('ok') }, { $id: 'Liveness', additionalProperties: false });

export const Readiness = Type.Object(
  { status: Type.Literal('ready'), store: Type.Union([Type.Literal('postgres'), Type.Literal('embedded')]) },
  { $id: 'Readiness', additionalProperties: false },
);

export const ProblemPage = Type.Object(
  {
    type: Type.String(),
    code: Type.String(),
    status: Type.Integer(),
    title: Type.String(),
    description: Type.String(),
  },
  { $id: 'ProblemPage', additionalProperties: false, description: 'what a problem type means, and what to do' },
);

/** The named schemas of the API, in the order they are added (each after those it refers to). */
export const NAMED_SCHEMAS: TSchema[] = [
  ProblemError,
  ProblemSchema,
  SyncSummarySchema,
  SyncAnswerSchema,
  SyncRun,
  SyncRunsPage,
  ProductOutput,
  ProductsPage,
  Category,
  Categories,
  Liveness,
  Readiness,
  ProblemPage,
];
