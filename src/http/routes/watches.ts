// Watches: POST /api/v1/watches (email or webhook, a search or a product), its token's GET and DELETE; the pages'
// "Watch this search / plan" forms (POST /watches), the confirmation link's page and the one-click unsubscribe
// (RFC 8058: a POST to the link unsubscribes, a GET shows a page with the button).
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import { Type, type Static } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { idPattern, newId } from '../../catalog/ids.js';
import { refusedTarget } from '../../net/outbound.js';
import { readPriceContext } from '../../store/rates.js';
import {
  confirmWatch,
  deleteWatch,
  findWatch,
  insertWatch,
  watchesOfAddress,
  watchToConfirm,
  type StoredWatch,
} from '../../store/watches.js';
import { unsubscribeUrl, watchedOf } from '../../watches/events.js';
import { productMatchKey, UnwatchableSearch, watchFilters, type WatchFilters } from '../../watches/filters.js';
import { CONFIRM_TTL_SECONDS, DIGEST_GAP_SECONDS } from '../../watches/schedule.js';
import {
  confirmDigest,
  manageToken,
  newConfirmToken,
  watchKey,
  watchOfToken,
  webhookSecret,
} from '../../watches/tokens.js';
import {
  confirmWatchPage,
  unsubscribedPage,
  unsubscribePage,
  watchConfirmedPage,
  watchProblemPage,
  watchRequestedPage,
} from '../../web/watch-pages.js';
import type { Html } from '../../web/html.js';
import type { AppContext } from '../context.js';
import { given, ProductSearchQuery, toProductSearch } from '../directory-query.js';
import { priceView } from '../listed-prices.js';
import { Problem } from '../problems.js';
import { publicBaseUrl } from '../public-url.js';
import { ALWAYS, json, problem } from '../schemas.js';
import { validationEntries } from '../validation.js';

/** Watch requests one client address may make per hour (the API and the forms together). */
export const WATCH_REQUESTS_PER_CLIENT_PER_HOUR = 20;
/** An address may wait for this many confirmations at once, and hold this many watches in all. */
export const UNCONFIRMED_PER_ADDRESS = 3;
export const WATCHES_PER_ADDRESS = 50;

const EMAIL =
  '^[^\\s@<>(),;:"\\[\\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$';

const WatchRequest = Type.Object(
  {
    email: Type.Optional(
      Type.String({ maxLength: 254, pattern: EMAIL, description: 'told by mail, once the address confirms' }),
    ),
    webhook_url: Type.Optional(
      Type.String({ maxLength: 2000, description: 'told by signed POSTs (Standard Webhooks) to this http(s) URL' }),
    ),
    search: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          'a directory query string as the page URL or GET /api/v1/directory/products holds it ("category=vps&country=DE&max_price=10"); its filters are watched, its sort and paging ignored',
      }),
    ),
    product_id: Type.Optional(Type.String({ pattern: idPattern('prd'), description: 'a listed product' })),
  },
  {
    additionalProperties: false,
    description: 'exactly one of email and webhook_url, and exactly one of search and product_id',
  },
);
type WatchRequest = Static<typeof WatchRequest>;

const WatchAnswer = Type.Object(
  {
    id: Type.String(),
    status: Type.Union([Type.Literal('pending_confirmation'), Type.Literal('active'), Type.Literal('disabled')]),
    channel: Type.Union([Type.Literal('email'), Type.Literal('webhook')]),
    search: Type.Union([Type.String(), Type.Null()]),
    product_id: Type.Union([Type.String(), Type.Null()]),
    webhook_url: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    confirmed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    pending_events: Type.Integer({ description: 'events not yet delivered' }),
    delivered: Type.Integer({ description: 'events delivered so far' }),
    last_delivered_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    next_mail_after: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'email: the next message waits until then (at most one an hour)',
    }),
    disabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    disabled_reason: Type.Union([Type.String(), Type.Null()], {
      description: 'why deliveries stopped: a webhook that failed for a day',
    }),
  },
  { $id: 'Watch', additionalProperties: false },
);

const WatchCreated = Type.Object(
  {
    watch: Type.Ref(WatchAnswer),
    token: Type.String({
      description:
        'manages the watch (GET and DELETE /api/v1/watches/{token}); shown once here, and in the unsubscribe link of every mail',
    }),
    webhook_secret: Type.Optional(
      Type.String({
        description: 'webhooks: the signing secret (whsec_…), shown only here; verify every delivery with it',
      }),
    ),
  },
  { $id: 'WatchCreated', additionalProperties: false },
);

export const WATCH_SCHEMAS = [WatchAnswer, WatchCreated];

const TokenParams = Type.Object({ token: Type.String({ maxLength: 100, description: 'the watch token (wtk_…)' }) });

// The directory's query parameters, checked as Fastify checks a query string: strings coerced, every problem named.
const ajv = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: true, allErrors: true });
addFormats.default(ajv);
const checkSearchQuery = ajv.compile(ProductSearchQuery);

export const watchRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { db, config, mailer } = context;
  const key = watchKey(context.adminToken);
  await app.register(formbody);
  // RFC 8058's one-click POST may come as multipart: the token is in the link's query, the body is not needed.
  app.addContentTypeParser('multipart/form-data', (_request, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null, {}));
  });
  await app.register(rateLimit, {
    global: false,
    max: WATCH_REQUESTS_PER_CLIENT_PER_HOUR,
    timeWindow: '1 hour',
    errorResponseBuilder: (_request, limit) =>
      new Problem('RATE_LIMITED', `too many watch requests from this address; try again in ${limit.after}`, {
        headers: { 'retry-after': String(Math.max(1, Math.ceil(limit.ttl / 1000))) },
      }),
  });
  // The pages' refusals (a bad address, too many watches) as pages; the API's stay problem+json (the app's handler).
  app.setErrorHandler((error, request, reply) => {
    if (!(error instanceof Problem) || request.url.startsWith('/api/')) throw error;
    const entries = error.extra.errors;
    const what = entries?.length ? entries.map((entry) => entry.detail).join('; ') : error.detail;
    const title = error.status === 429 ? 'Too many watches' : 'That watch could not be made';
    reply.headers(error.extra.headers ?? {});
    return sendPage(reply, watchProblemPage(title, `${capitalized(what)}.`), error.status);
  });
  // One count per client for the API and the form alike (a route's own settings would count each route apart).
  const limited = app.rateLimit();

  /** Checks and stores a watch; mails the confirmation link to an address. */
  const create = async (request: FastifyRequest, body: WatchRequest) => {
    if ((body.email === undefined) === (body.webhook_url === undefined))
      throw refusal('', 'one_of', 'give exactly one of email and webhook_url');
    if ((body.search === undefined) === (body.product_id === undefined))
      throw refusal('', 'one_of', 'give exactly one of search and product_id');
    const baseUrl = publicBaseUrl(config, request);
    const id = newId('wch');
    const filters = body.search === undefined ? null : await filtersOf(body.search);
    const email = body.email === undefined ? null : canonicalAddress(body.email);
    if (body.webhook_url !== undefined) {
      const why = refusedTarget(body.webhook_url, config.allowPrivateTargets);
      if (why) throw refusal('/webhook_url', 'refused_target', `the webhook URL ${why}`);
    }
    if (email !== null) {
      const held = await watchesOfAddress(db, email);
      if (held.unconfirmed >= UNCONFIRMED_PER_ADDRESS || held.all >= WATCHES_PER_ADDRESS)
        throw new Problem(
          'RATE_LIMITED',
          'this address already has as many watches as it may (or waits for confirmations); confirm or end those first',
          { headers: { 'retry-after': String(CONFIRM_TTL_SECONDS) } },
        );
    }
    const confirm = email === null ? null : newConfirmToken();
    const search = body.search === undefined ? null : body.search.replace(/^\?/, '');
    const stored = await insertWatch(db, {
      id,
      email,
      webhookUrl: body.webhook_url ?? null,
      productId: body.product_id ?? null,
      search,
      filters,
      matchKey: filters?.matchKey ?? productMatchKey(body.product_id!),
      confirm: confirm && { digest: confirm.digest, expiresAt: new Date(Date.now() + CONFIRM_TTL_SECONDS * 1000) },
    });
    if (!stored.ok)
      throw stored.reason === 'unknown_host'
        ? refusal('/search', 'unknown_host', `no provider is listed as ${filters?.hostSlug ?? ''}`)
        : refusal('/product_id', 'unknown_product', 'no such product is listed');
    if (email !== null && confirm !== null) {
      const watched = watchedOf(baseUrl, { search, product_id: body.product_id ?? null }).words;
      try {
        await mailer.send({
          to: email,
          subject: 'hostdir: confirm your watch',
          text:
            `Someone (we hope you) asked hostdir to tell this address about changes to ${watched}.\n\n` +
            `Confirm within 24 hours: ${baseUrl}/watches/confirm?token=${confirm.token}\n\n` +
            'If you did not ask, do nothing: no other message will come, and the address is deleted in 24 hours.\n',
        });
      } catch (error) {
        await deleteWatch(db, id);
        request.log.warn({ err: error }, 'a watch confirmation could not be mailed');
        throw new Problem('SERVICE_UNAVAILABLE', 'the confirmation mail could not be sent; nothing was kept', {
          headers: { 'retry-after': '60' },
        });
      }
    }
    const watch = (await findWatch(db, id))!;
    return { watch, token: manageToken(key, id) };
  };

  /** The filters of a watched search, checked as the directory checks its query (the same 422 for the same fault). */
  const filtersOf = async (search: string): Promise<WatchFilters> => {
    const params = new URLSearchParams(search.replace(/^\?/, ''));
    const query: Record<string, string | string[]> = {};
    for (const [name, value] of params) query[name] = name in query ? [query[name] as string, value].flat() : value;
    if (!checkSearchQuery(query)) {
      const entries = validationEntries(
        checkSearchQuery.errors as unknown as FastifySchemaValidationError[],
        'request',
        (name) => params.get(name) ?? undefined,
      );
      throw new Problem('VALIDATION_FAILED', entries.map((e) => `${e.parameter}: ${e.detail}`).join('; '), {
        errors: entries,
      });
    }
    const prices = await readPriceContext(db);
    const checked = query as ProductSearchQuery;
    const view = priceView(
      { display: checked.display_currency, filter: given(checked.currency)?.toUpperCase() },
      config.displayCurrency,
      prices.rates,
      true,
    );
    const productSearch = toProductSearch(checked, { staleAfterDays: config.staleAfterDays }, view);
    try {
      return watchFilters(productSearch);
    } catch (error) {
      if (error instanceof UnwatchableSearch) throw refusal('/search', 'unwatchable', error.message);
      throw error;
    }
  };

  const managed = async (token: string): Promise<StoredWatch> => {
    const id = watchOfToken(key, token);
    const watch = id === null ? null : await findWatch(db, id);
    if (!watch) throw new Problem('NOT_FOUND', 'no watch has this token (it may have been deleted)');
    return watch;
  };

  app.post<{ Body: WatchRequest }>(
    '/api/v1/watches',
    {
      onRequest: limited,
      schema: {
        operationId: 'createWatch',
        summary: 'Watches a search or a product, by email or webhook',
        description:
          'An email watch starts once the address opens the confirmation link mailed to it (nothing else is sent before); ' +
          'a webhook watch starts at once, and its signing secret is in this answer only. docs/watches.md says what is told when.',
        tags: ['watches'],
        body: WatchRequest,
        response: {
          201: json('the watch, its token and (webhooks) its secret', WatchCreated),
          404: problem(['NOT_FOUND']),
          415: problem(['UNSUPPORTED_MEDIA_TYPE']),
          422: problem(['VALIDATION_FAILED']),
          429: problem(['RATE_LIMITED'], ['retry-after']),
          ...ALWAYS,
        },
      },
    },
    async (request, reply) => {
      const { watch, token } = await create(request, request.body);
      return reply.status(201).send({
        watch: watchAnswer(watch),
        token,
        ...(watch.webhook_url !== null ? { webhook_secret: webhookSecret(key, watch.id) } : {}),
      });
    },
  );

  app.get<{ Params: { token: string } }>(
    '/api/v1/watches/:token',
    {
      schema: {
        operationId: 'getWatch',
        summary: 'A watch by its token: its state, and why a webhook was turned off',
        tags: ['watches'],
        params: TokenParams,
        response: { 200: json('the watch', WatchAnswer), 404: problem(['NOT_FOUND']), ...ALWAYS },
      },
    },
    async (request) => watchAnswer(await managed(request.params.token)),
  );

  app.delete<{ Params: { token: string } }>(
    '/api/v1/watches/:token',
    {
      schema: {
        operationId: 'deleteWatch',
        summary: 'Ends a watch: it, its address and its undelivered events are deleted',
        tags: ['watches'],
        params: TokenParams,
        response: { 204: { description: 'deleted' }, 404: problem(['NOT_FOUND']), ...ALWAYS },
      },
    },
    async (request, reply) => {
      const watch = await managed(request.params.token);
      await deleteWatch(db, watch.id);
      return reply.status(204).send();
    },
  );

  // --- the pages ---------------------------------------------------------------------------------------------

  app.post<{ Body: Record<string, string | undefined> }>('/watches', { onRequest: limited }, async (request, reply) => {
    const body = request.body ?? {};
    const asked: WatchRequest = { email: (body.email ?? '').trim() };
    if (body.product_id) asked.product_id = body.product_id;
    else asked.search = body.search ?? '';
    if (!new RegExp(EMAIL).test(asked.email!) || asked.email!.length > 254)
      throw refusal('/email', 'pattern', 'that is not an email address');
    if (asked.product_id !== undefined && !new RegExp(idPattern('prd')).test(asked.product_id))
      throw refusal('/product_id', 'pattern', 'that is not a product of the directory');
    await create(request, asked);
    return sendPage(reply, watchRequestedPage(asked.email!), 200);
  });

  app.get<{ Querystring: { token?: string } }>('/watches/confirm', async (request, reply) => {
    const token = request.query.token ?? '';
    const watch = await watchToConfirm(db, confirmDigest(token));
    if (!watch) return sendPage(reply, expiredConfirmation(), 404);
    return sendPage(reply, confirmWatchPage(token, watchedOf('', watch).words), 200);
  });

  app.post<{ Body: { token?: string } }>('/watches/confirm', async (request, reply) => {
    const watch = await confirmWatch(db, confirmDigest(request.body?.token ?? ''));
    if (!watch) return sendPage(reply, expiredConfirmation(), 404);
    const unsubscribe = unsubscribeUrl(publicBaseUrl(config, request), key, watch.id);
    return sendPage(reply, watchConfirmedPage(watchedOf('', watch).words, unsubscribe), 200);
  });

  app.get<{ Querystring: { token?: string } }>('/watches/unsubscribe', async (request, reply) => {
    const token = request.query.token ?? '';
    const id = watchOfToken(key, token);
    const watch = id === null ? null : await findWatch(db, id);
    if (!watch) return sendPage(reply, unsubscribedPage(), 200);
    return sendPage(reply, unsubscribePage(token, watchedOf('', watch).words), 200);
  });

  // A mail program's one-click POST (token in the link) and the page's button (token in the form) alike.
  app.post<{ Querystring: { token?: string }; Body: { token?: string } | undefined }>(
    '/watches/unsubscribe',
    async (request, reply) => {
      const token = request.query.token ?? request.body?.token ?? '';
      const id = watchOfToken(key, token);
      if (id === null)
        return sendPage(reply, watchProblemPage('Not a link of ours', 'This unsubscribe link is not valid.'), 404);
      await deleteWatch(db, id);
      return sendPage(reply, unsubscribedPage(), 200);
    },
  );
};

function watchAnswer(watch: StoredWatch): Static<typeof WatchAnswer> {
  const lastSent = watch.last_sent_at === null ? null : new Date(watch.last_sent_at);
  return {
    id: watch.id,
    status: watch.disabled_at !== null ? 'disabled' : watch.confirmed_at === null ? 'pending_confirmation' : 'active',
    channel: watch.email !== null ? 'email' : 'webhook',
    search: watch.search,
    product_id: watch.product_id,
    webhook_url: watch.webhook_url,
    created_at: watch.created_at,
    confirmed_at: watch.confirmed_at,
    pending_events: watch.pending_events,
    delivered: watch.delivered,
    last_delivered_at: watch.last_delivered_at,
    next_mail_after:
      watch.email === null || lastSent === null
        ? null
        : new Date(lastSent.getTime() + DIGEST_GAP_SECONDS * 1000).toISOString(),
    disabled_at: watch.disabled_at,
    disabled_reason: watch.disabled_reason,
  };
}

function refusal(pointer: string, code: string, detail: string): Problem {
  return new Problem('VALIDATION_FAILED', detail, { errors: [{ pointer, code, detail }] });
}

/** The address as stored and counted: its domain in lower case (the local part is the receiver's to interpret). */
function canonicalAddress(email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, at)}@${email.slice(at + 1).toLowerCase()}`;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function expiredConfirmation(): Html {
  return watchProblemPage(
    'This link has expired',
    'The confirmation link was used already, or is older than 24 hours (the watch and its address are then deleted). Ask again from the page you watched.',
  );
}

function sendPage(reply: FastifyReply, page: Html, status: number): FastifyReply {
  return reply.status(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page.value);
}
