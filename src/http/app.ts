// Builds the Fastify application: hooks shared by every route, problem+json errors, 404/405, route groups.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import fastifyCompress from '@fastify/compress';
import fastifyCors from '@fastify/cors';
import Fastify, {
  type FastifyError,
  type FastifyPluginAsync,
  type HTTPMethods,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import FindMyWay from 'find-my-way';
import { newId } from '../catalog/ids.js';
import { isUnavailable, StatementTimeoutError } from '../store/db.js';
import { DirectoryBusyError, ReadShare } from '../store/read-share.js';
import { AuthFailures } from './auth-failures.js';
import { createMailer, type Mailer } from '../mail/mailer.js';
import type { AppContext } from './context.js';
import { PRIVATE_CACHE_CONTROL, revalidatedByEtag } from './freshness.js';
import { createMetrics, metricsRoutes } from './metrics.js';
import { openApiRoute, registerOpenApi } from './openapi.js';
import { Problem, PROBLEM_TYPE, problemBody, rawProblemResponse, retryAfter, sendProblem } from './problems.js';
import { requestIdOf } from './request-id.js';
import { validationEntries } from './validation.js';
import { adminRoutes } from './routes/admin.js';
import { providerAreaRoutes } from './routes/accounts.js';
import { adminAccountRoutes } from './routes/admin-accounts.js';
import { categoryRoutes } from './routes/categories.js';
import { compareRoutes } from './routes/compare.js';
import { directoryRoutes } from './routes/directory.js';
import { feedRoutes } from './routes/feeds.js';
import { healthRoutes } from './routes/health.js';
import { pageRoutes, sendNotFoundPage, sendUnavailablePage } from './routes/pages.js';
import { problemPageRoutes } from './routes/problem-pages.js';
import { seoRoutes } from './routes/seo.js';
import { productRoutes } from './routes/products.js';
import { profileRoutes } from './routes/profile.js';
import { syncRoutes } from './routes/sync.js';
import { watchRoutes } from './routes/watches.js';
import { syncRunRoutes } from './routes/sync-runs.js';
import { SyncSlots } from '../sync/slots.js';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface AppOptions extends Omit<AppContext, 'metrics' | 'syncSlots' | 'directory' | 'mailer'> {
  logger?: FastifyServerOptions['logger'];
  /** where mail goes (default: as SMTP_URL and DATA_DIR say); closed with the app */
  mailer?: Mailer;
  /** where the public directory reads (default: db) */
  directory?: AppContext['directory'];
}

/**
 * A client must have sent its request headers within this time (never longer than REQUEST_TIMEOUT_MS, config.ts):
 * headers are a few hundred bytes, so 10 s is ample for any client, and short enough that connections opened and
 * left silent do not pile up.
 */
export const HEADERS_TIMEOUT_MS = 10_000;

/** How long a directory statement waits for its turn before the request is answered 503: as long as any request waits for a pool connection. */
const DIRECTORY_WAIT_MS = 5_000;

/**
 * How long one statement of the directory's reads may run before PostgreSQL stops it and the request is answered 503:
 * above the dearest answers the directory gives at a million products (a sort by a spec without an index of its own
 * reads every product giving the spec: about 1 s at p99 on two cores), so that no listing a visitor can ask for is cut, and far below STATEMENT_TIMEOUT_MS, which a sync's
 * statements need: a search too broad for its indexes holds one of the directory's connections for this long at most.
 */
const DIRECTORY_STATEMENT_TIMEOUT_MS = 2_000;

/** The routes that answer without the database, before it has first been reached (the probe says why not ready). */
const WITHOUT_DATABASE = new Set([
  '/healthz',
  '/readyz',
  '/api/v1/openapi.json',
  '/api/v1/problems/:slug',
  '/robots.txt',
  '/favicon.ico',
  '/favicon.svg',
]);

/** Anything shaped like an API key or an admin token, wherever a client put it in a URL. */
const SECRET_IN_URL = /\b(rk|adm|lnk|wtk|wcf)_\w*/gi;

/** The URL as logged: a key a client wrongly sent in the query string (or path) never reaches the log. */
function loggableUrl(url: string, adminToken?: string): string {
  let safe = url.replace(SECRET_IN_URL, '$1_[redacted]');
  if (adminToken) {
    safe = safe.replaceAll(adminToken, '[redacted]').replaceAll(encodeURIComponent(adminToken), '[redacted]');
  }
  return safe;
}

/** Where log lines are written instead of stdout: one JSON line per write. */
export interface LogDestination {
  write(line: string): void;
}

export function loggerOptions(
  level: string,
  adminToken?: string,
  destination?: LogDestination,
): FastifyServerOptions['logger'] {
  return {
    level,
    ...(destination ? { stream: destination } : {}),
    // Credentials never reach the log, whatever a future serializer decides to include.
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-admin-token"]', 'headers.authorization'],
      censor: '[redacted]',
    },
    serializers: {
      // Fastify's own request serializer, with the URL scrubbed.
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: loggableUrl(request.url, adminToken),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  };
}

// PostgreSQL refuses U+0000 in text (22021) and unpaired surrogates in JSON (22P05). The validators refuse both
// first; this is the net for any string that reaches SQL some other way (a path parameter, an admin field).
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/** A query value as a problem may quote it back: short, and without control characters. */
function quotable(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined || value.length > 100) return undefined;
  return value.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** Malformed HTTP, timeouts and oversized headers, answered before Fastify has a request: still problem+json. */
function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? (['REQUEST_TIMEOUT', 'the request did not arrive in time; the connection is closed'] as const)
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? (['HEADERS_TOO_LARGE', 'the request headers are too large'] as const)
        : (['BAD_REQUEST', 'the request is not well-formed HTTP/1.1'] as const);
  const requestId = newId('req');
  this.log.info({ reqId: requestId, code: error.code, remoteAddress: socket.remoteAddress }, `client error: ${code}`);
  // A response already under way cannot be followed by another one on the same connection.
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !pending?.headersSent)
    socket.write(rawProblemResponse(code, detail, requestId, pathOf(error)));
  socket.destroy();
}

/** The path of the request line the parser had read when it failed, or "" when it had not read one. */
function pathOf(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): string {
  const head = error.rawPacket?.subarray(0, 2048).toString('latin1') ?? '';
  return /^[A-Z]+ (\/[\x21-\x7e]*?)(?:[?#][\x21-\x7e]*)? HTTP\/1\.[01]\r?\n/.exec(head)?.[1] ?? '';
}

/** Whether a request asks for 100 Continue before it sends its body. */
function expectsContinue(request: IncomingMessage): boolean {
  return (
    String(request.headers.expect ?? '')
      .trim()
      .toLowerCase() === '100-continue'
  );
}

const CONTINUED = Symbol('100 Continue sent');

/**
 * Node answers "Expect: 100-continue" itself unless told otherwise, before any check has run: a client refused for
 * its key, its rate limit, its media type or its size would upload its whole body for nothing. Such requests are
 * passed on as ordinary ones, and 100 Continue is sent only when the body is about to be read (every check a route
 * makes on the headers runs in its onRequest hooks, before that). Any other expectation gets 417, as problem+json.
 */
function answerExpectations(app: FastifyInstance): void {
  app.server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) =>
    app.server.emit('request', request, response),
  );
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const requestId = requestIdOf(request);
    const instance = (request.url ?? '').split('?')[0] ?? '';
    const body = JSON.stringify(
      problemBody(
        new Problem('EXPECTATION_FAILED', `the server meets only "Expect: 100-continue"`),
        instance,
        requestId,
      ),
    );
    app.log.info(
      { reqId: requestId, expect: String(request.headers.expect).slice(0, 100) },
      'client error: EXPECTATION_FAILED',
    );
    response.writeHead(417, {
      'content-type': PROBLEM_TYPE,
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
      connection: 'close',
    });
    response.end(body);
  });
  app.addHook('preParsing', async (request, reply, payload) => {
    const raw = request.raw as IncomingMessage & { [CONTINUED]?: boolean };
    if (expectsContinue(raw) && !raw[CONTINUED] && !reply.raw.headersSent) {
      raw[CONTINUED] = true;
      reply.raw.writeContinue();
    }
    return payload;
  });
}

/**
 * What anyone may read, and other programs too: the directory's JSON and pages, the category registry, the
 * OpenAPI document, the problem pages and the files for search engines. Here alone: an ETag and Cache-Control on
 * every answer (and 304 to a client that holds it), compression (brotli or gzip, above 1 KiB) and CORS for any
 * origin, without credentials, preflight requests included. Provider and admin routes stay outside: no browser on
 * another origin may read them, and a preflight for them is refused like any other OPTIONS request.
 */
/** Answers up to this size are compressed in one call; larger ones (a CSV export, a feed) through a stream. */
const COMPRESS_IN_ONE_CALL_BYTES = 128 * 1024;

const publicReads: FastifyPluginAsync<AppContext> = async (scope, context) => {
  // The paths of this scope, for the preflight requests: CORS's OPTIONS route matches any path, and answers only these.
  const paths = FindMyWay({ ignoreTrailingSlash: true });
  scope.addHook('onRoute', (route) => {
    route.config = { ...route.config, publicRead: true };
    if (route.url !== '*' && !paths.hasRoute('GET', route.url)) paths.on('GET', route.url, () => {});
  });
  // The ETag is taken of the answer before it is compressed: its hook is added before compression's.
  revalidatedByEtag(scope);
  // Pages and JSON pages are 10–70 KB and already in memory: compressed in one call, they cost a fraction of what a
  // zlib stream per answer does (the plugin's default keeps that path for answers under 8 KiB on two cores).
  await scope.register(fastifyCompress, {
    threshold: 1024,
    encodings: ['br', 'gzip'],
    syncThreshold: COMPRESS_IN_ONE_CALL_BYTES,
  });
  // CORS's preflight route (OPTIONS, any path) is shared by every path: a preflight for a path that is not one of
  // these passes on to 404 or 405, before CORS adds a header.
  scope.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'OPTIONS' && !paths.find('GET', request.url.split('?')[0] ?? '/')) {
      reply.callNotFound();
      return;
    }
    done();
  });
  await scope.register(fastifyCors, {
    origin: '*',
    methods: ['GET', 'HEAD'],
    allowedHeaders: ['Accept', 'If-None-Match', 'X-Request-Id'],
    exposedHeaders: ['ETag', 'X-Request-Id'],
    credentials: false,
    strictPreflight: false,
    maxAge: 86400,
  });
  openApiRoute(scope);
  await scope.register(problemPageRoutes, context);
  await scope.register(categoryRoutes, context);
  await scope.register(directoryRoutes, context);
  await scope.register(feedRoutes, context);
  await scope.register(pageRoutes, context);
  await scope.register(seoRoutes, context);
  await scope.register(compareRoutes, context);
};

/** A 503: a page to a browser outside the APIs (as a dead link gets one), problem+json to everything else. */
function sendUnavailable(request: FastifyRequest, reply: FastifyReply, problem: Problem): FastifyReply {
  const path = request.url.split('?')[0] ?? '/';
  if (!/^\/(api|admin)(\/|$)/.test(path) && String(request.headers.accept ?? '').includes('text/html'))
    return sendUnavailablePage(reply, problem);
  return sendProblem(reply, problem);
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { logger = false, ...settings } = options;
  const syncSlots = new SyncSlots(settings.config.syncConcurrency, settings.config.syncQueueLimit);
  // However many and slow the visitors' reads, the providers and the operator keep connections of their own.
  const directory = new ReadShare(
    settings.directory ?? settings.db,
    settings.config.directoryConcurrency,
    DIRECTORY_WAIT_MS,
    DIRECTORY_STATEMENT_TIMEOUT_MS,
  );
  const context: AppContext = {
    ...settings,
    directory,
    syncSlots,
    metrics: createMetrics(settings.db, syncSlots, directory, settings.replicas),
    mailer: settings.mailer ?? createMailer(settings.config),
  };
  const { config } = context;
  const app = Fastify({
    logger,
    genReqId: requestIdOf,
    return503OnClosing: false,
    bodyLimit: 1024 * 1024,
    // Slow-loris protection: a client must send its headers, and its whole request, in bounded time. Node checks
    // these deadlines every connectionsCheckingInterval, so that interval bounds how late a slow client is cut off.
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(config.headersTimeoutMs / 4))),
    },
    // No idle timeout while a request is processed: a large sync may take long without a byte on the wire.
    connectionTimeout: 0,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    forceCloseConnections: 'idle',
    // Behind a proxy (deploy/nginx/hostdir.conf), the client's address comes from X-Forwarded-For, believed only
    // from the proxies TRUST_PROXY names.
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    routerOptions: { ignoreTrailingSlash: true },
    // Every problem of a request at once, not only the first: a visitor fixes all in one go. What the schemas check is
    // small (queries, the admin's and a profile's bodies); a catalogue has its own validator (catalog/validate.ts).
    ajv: { customOptions: { allErrors: true } },
    clientErrorHandler: answerClientError,
    // Fastify answers these before any hook runs; as problems with a request id they look like every other answer.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        sendProblem(reply, new Problem('NOT_FOUND', 'no resource at this path'));
      } else {
        sendProblem(reply, new Problem('BAD_REQUEST', 'the URL is not valid (check its percent-encoding)'));
      }
    },
  });

  app.decorate('authFailures', new AuthFailures(config.authFailureLimit, config.authFailureWindowSeconds));

  // Every method each path answers, kept apart to tell "wrong method" (405) from "no such path" (404).
  const known = FindMyWay({ ignoreTrailingSlash: true });
  app.addHook('onClose', () => context.mailer.close());
  app.addHook('onRoute', (route) => {
    // A catch-all (the CORS plugin's OPTIONS *, which passes on to "not found" outside the public scope) names no path.
    if (route.url === '*') return;
    const methods: HTTPMethods[] = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const upper = method.toUpperCase() as FindMyWay.HTTPMethod;
      if (!known.hasRoute(upper, route.url)) known.on(upper, route.url, () => {});
    }
  });

  answerExpectations(app);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // No cache may keep an answer unless the public reads say so (a 200 of theirs, see freshness.ts).
    reply.header('cache-control', PRIVATE_CACHE_CONTROL);
    // The asterisk-form target (RFC 9112 3.2.4) names the server, not a resource: OPTIONS * says what the server
    // allows; any other method with it is malformed.
    if (request.raw.url === '*') {
      if (request.method === 'OPTIONS') {
        return reply.code(204).header('allow', 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS').send();
      }
      throw new Problem('BAD_REQUEST', `the request target "*" is meaningful only with OPTIONS`);
    }
    if (context.lifecycle.closing) {
      throw new Problem('SERVICE_UNAVAILABLE', 'the server is shutting down', {
        headers: { ...retryAfter(), connection: 'close' },
      });
    }
    if (!context.lifecycle.prepared && !WITHOUT_DATABASE.has(request.routeOptions.url ?? '')) {
      throw new Problem('SERVICE_UNAVAILABLE', 'the database has not been reached yet; nothing was changed', {
        headers: retryAfter(),
      });
    }
  });

  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: ids and query strings would make every request a new series.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    context.metrics.requests.inc(labels);
    context.metrics.requestDuration.observe(labels, reply.elapsedTime / 1000);
  });

  app.setErrorHandler((error: FastifyError | Problem, request, reply) => {
    if (error instanceof Problem) return sendProblem(reply, error);
    if (error instanceof DirectoryBusyError) {
      request.log.warn({ err: error }, 'directory busy');
      return sendUnavailable(
        request,
        reply,
        new Problem(
          'SERVICE_UNAVAILABLE',
          'the directory is answering as many requests as it may at once; retry after the seconds in Retry-After',
          {
            headers: retryAfter(),
          },
        ),
      );
    }
    if (error instanceof StatementTimeoutError) {
      request.log.warn({ err: error }, 'directory read stopped at its time limit');
      const seconds = error.timeoutMs / 1000;
      return sendUnavailable(
        request,
        reply,
        new Problem(
          'SERVICE_UNAVAILABLE',
          `this request took longer than the ${seconds} s the directory gives a read, and was stopped: a narrower search (a category, another word, a price limit) answers sooner; retry after the seconds in Retry-After`,
          { headers: retryAfter() },
        ),
      );
    }
    if (isUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendUnavailable(
        request,
        reply,
        new Problem('SERVICE_UNAVAILABLE', 'the database is unreachable; retry after the seconds in Retry-After', {
          headers: retryAfter(),
        }),
      );
    }
    if (UNSTORABLE_TEXT.has(String((error as { code?: unknown }).code))) {
      return sendProblem(
        reply,
        new Problem('VALIDATION_FAILED', 'a text value cannot be stored; nothing was changed', {
          errors: [
            {
              pointer: '',
              code: 'invalid_unicode',
              detail: 'text must not contain U+0000 (NUL) or a UTF-16 surrogate without its pair',
            },
          ],
        }),
      );
    }
    if (error.validation) {
      const where = error.validationContext === 'body' ? 'body' : 'request';
      const query =
        error.validationContext === 'querystring' ? new URLSearchParams(request.url.split('?')[1] ?? '') : null;
      const entries = validationEntries(error.validation, where, (name) => quotable(query?.get(name)));
      const detail =
        where === 'body'
          ? `${entries.length} problem(s) in the body`
          : entries.map((entry) => `${entry.parameter}: ${entry.detail}`).join('; ');
      return sendProblem(reply, new Problem('VALIDATION_FAILED', detail, { errors: entries }));
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendProblem(reply, new Problem('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(
          reply,
          new Problem('PAYLOAD_TOO_LARGE', 'the body is too large', { headers: { connection: 'close' } }),
        );
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return sendProblem(
          reply,
          new Problem('VALIDATION_FAILED', 'the body is not valid JSON', {
            errors: [{ pointer: '', code: 'invalid_json', detail: error.message }],
          }),
        );
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendProblem(
          reply,
          new Problem('BAD_REQUEST', 'Content-Length does not match the body', { headers: { connection: 'close' } }),
        );
    }
    if (error instanceof SyntaxError && error.statusCode === 400) {
      return sendProblem(
        reply,
        new Problem('VALIDATION_FAILED', 'the body is not valid JSON', {
          errors: [{ pointer: '', code: 'invalid_json', detail: error.message }],
        }),
      );
    }
    request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, new Problem('INTERNAL_ERROR', 'an unexpected error occurred; nothing was half-applied'));
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = (['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const).filter((method) =>
      known.find(method, path),
    );
    if (allowed.length > 0) {
      return sendProblem(
        reply,
        new Problem('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, {
          headers: { allow: allowed.join(', ') },
        }),
      );
    }
    // A browser that follows a dead link outside the APIs gets a page, not JSON.
    if (!/^\/(api|admin)(\/|$)/.test(path) && String(request.headers.accept ?? '').includes('text/html')) {
      return sendNotFoundPage(reply, 'There is no page at this address.');
    }
    return sendProblem(reply, new Problem('NOT_FOUND', `no resource at ${path}`));
  });

  // Before the routes: the document is collected from them as they are added.
  await registerOpenApi(app, PACKAGE_VERSION);
  await app.register(healthRoutes, context);
  await app.register(metricsRoutes, context);
  await app.register(syncRoutes, context);
  await app.register(syncRunRoutes, context);
  await app.register(productRoutes, context);
  await app.register(profileRoutes, context);
  await app.register(adminRoutes, context);
  await app.register(adminAccountRoutes, context);
  await app.register(providerAreaRoutes, context);
  await app.register(watchRoutes, context);
  await app.register(publicReads, context);
  return app;
}
