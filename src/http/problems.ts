// RFC 9457 problem details: every error hostdir answers, with its status, title and a page about it.
import type { FastifyReply } from 'fastify';

export interface ProblemType {
  status: number;
  slug: string;
  title: string;
  /** what the problem page says: what it means and what to do */
  about: string;
}

export const PROBLEM_TYPES = {
  BAD_REQUEST: {
    status: 400,
    slug: 'bad-request',
    title: 'Bad request',
    about:
      'The HTTP request itself was malformed (for example a Content-Length that does not match the body). Fix the client and send it again.',
  },
  UNAUTHORIZED: {
    status: 401,
    slug: 'unauthorized',
    title: 'Unauthorized',
    about:
      'Send your API key as "Authorization: Bearer rk_…". The key is missing, malformed or unknown. Ask the directory operator for a new key if you lost yours.',
  },
  KEY_REVOKED: {
    status: 403,
    slug: 'key-revoked',
    title: 'API key revoked',
    about:
      'The key was revoked, or the provider it belongs to is suspended. Use another active key, or contact the directory operator.',
  },
  NOT_FOUND: {
    status: 404,
    slug: 'not-found',
    title: 'Not found',
    about: 'No such resource, or it belongs to someone else. Check the path and the id.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    slug: 'method-not-allowed',
    title: 'Method not allowed',
    about: 'The path exists but does not accept this method. The Allow header lists the methods it does accept.',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    slug: 'request-timeout',
    title: 'Request timeout',
    about:
      'The request headers or body did not arrive in time (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS), so the connection was closed. Nothing was changed. Send the whole request without pauses.',
  },
  CONFLICT: {
    status: 409,
    slug: 'conflict',
    title: 'Conflict',
    about:
      'The resource already exists (for example a host slug or a category slug that is taken). Choose another identifier.',
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    slug: 'idempotency-key-in-use',
    title: 'Idempotency key in use',
    about:
      'A request with the same Idempotency-Key is still being processed. Wait a moment and send the same request again to receive its answer.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    slug: 'payload-too-large',
    title: 'Payload too large',
    about:
      'The request body (after decompression) is larger than the server accepts. Send fewer products or contact the operator about the limit.',
  },
  EXPECTATION_FAILED: {
    status: 417,
    slug: 'expectation-failed',
    title: 'Expectation failed',
    about:
      'The request carried an Expect header other than "100-continue", the only expectation the server meets. Send the request without it.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    slug: 'headers-too-large',
    title: 'Request header fields too large',
    about: 'The request headers are larger than the server accepts (16 KiB in all). Send fewer or shorter headers.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    slug: 'unsupported-media-type',
    title: 'Unsupported media type',
    about: 'Send the catalogue as "Content-Type: application/json" (UTF-8), optionally with "Content-Encoding: gzip".',
  },
  VALIDATION_FAILED: {
    status: 422,
    slug: 'validation-failed',
    title: 'Validation failed',
    about:
      'The body or a query parameter broke a rule. Each entry of "errors" names the place (a JSON Pointer into the body, or the query parameter), a code and a detail. Nothing was changed.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    slug: 'idempotency-key-reused',
    title: 'Idempotency key reused',
    about:
      'This Idempotency-Key was already used with a different body. Use a fresh key for every new catalogue, and the same key only to retry the same body.',
  },
  RATE_LIMITED: {
    status: 429,
    slug: 'rate-limited',
    title: 'Rate limited',
    about:
      'The provider already used its syncs for the current window. Wait the number of seconds in Retry-After; the RateLimit header tells how many remain and when a slot frees.',
  },
  INTERNAL_ERROR: {
    status: 500,
    slug: 'internal-error',
    title: 'Internal error',
    about:
      'Something failed on the server. Nothing was half-applied: a sync is all or nothing. Retry later and quote the request_id to the operator.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    slug: 'service-unavailable',
    title: 'Service unavailable',
    about:
      'The database is unreachable, the server is shutting down or is busy, or a read of the directory took longer than it may (a narrower search answers sooner). Retry after the number of seconds in Retry-After. A sync answered so was not applied ("nothing was changed"), unless the answer says its outcome is unknown: then send it again with the same Idempotency-Key, or look for its sync_id in GET /api/v1/sync/runs.',
  },
} as const satisfies Record<string, ProblemType>;

export type ProblemCode = keyof typeof PROBLEM_TYPES;

export const PROBLEM_BASE = '/api/v1/problems';

export interface ProblemEntry {
  pointer?: string;
  parameter?: string;
  code: string;
  detail: string;
}

export class Problem extends Error {
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly extra: {
      errors?: ProblemEntry[];
      truncated?: boolean;
      headers?: Record<string, string>;
      [field: string]: unknown;
    } = {},
  ) {
    super(detail);
    this.name = 'Problem';
  }

  get status(): number {
    return PROBLEM_TYPES[this.code].status;
  }
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** Seconds a client is asked to wait when the server cannot serve it now: the database out of reach, stopping, busy. */
const RETRY_AFTER_SECONDS = 5;

/** The Retry-After header: whole seconds, rounded up, at least 1. */
export function retryAfter(seconds: number = RETRY_AFTER_SECONDS): { 'retry-after': string } {
  return { 'retry-after': String(Math.max(1, Math.ceil(seconds))) };
}

/**
 * A problem's body. `instance` is the request path, or "" when the request was not read far enough to know it;
 * extension members (errors, truncated…) follow the standard ones.
 */
export function problemBody(problem: Problem, instance: string, requestId: string): Record<string, unknown> {
  const type = PROBLEM_TYPES[problem.code];
  const { headers: _headers, ...extra } = problem.extra;
  return {
    type: `${PROBLEM_BASE}/${type.slug}`,
    title: type.title,
    status: type.status,
    code: problem.code,
    detail: problem.detail,
    instance,
    request_id: requestId,
    ...extra,
  };
}

/**
 * A whole HTTP/1.1 response for a problem found before any request object exists (malformed HTTP, timeouts,
 * oversized headers): written straight to the socket, which is closed afterwards.
 */
export function rawProblemResponse(code: ProblemCode, detail: string, requestId: string, instance: string): string {
  const type = PROBLEM_TYPES[code];
  const body = JSON.stringify(problemBody(new Problem(code, detail), instance, requestId));
  return (
    `HTTP/1.1 ${type.status} ${type.title}\r\n` +
    `Content-Type: ${PROBLEM_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  const { request } = reply;
  return reply
    .headers(problem.extra.headers ?? {})
    .status(problem.status)
    .type(PROBLEM_TYPE)
    .send(JSON.stringify(problemBody(problem, request.url.split('?')[0] ?? '', request.id)));
}

/**
 * A value that is not one of those allowed, said the same way by the API's problems and the pages' messages:
 * `“cheapest” is not one of: price, newest, name`.
 */
export function notOneOf(value: string | undefined, allowed: readonly string[]): string {
  return `${value === undefined ? 'the value' : `“${value}”`} is not one of: ${allowed.join(', ')}`;
}
