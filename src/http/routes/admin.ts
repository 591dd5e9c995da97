// The operator's API under /admin/v1, protected by the admin token; the hostdir CLI is its client.
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import { CURRENCY_CODE_PATTERN, isKnownCurrency } from '../../catalog/currency.js';
import { CATEGORY_SLUG_PATTERN, HOST_SLUG_PATTERN, isHostSlug, slugFromName } from '../../catalog/slugs.js';
import { issueApiKey, listApiKeys, revokeApiKey } from '../../store/api-keys.js';
import { addCategory, CategoryExistsError, listCategories } from '../../store/categories.js';
import { parseRatesFile, parseRatesJson, RatesFormatError } from '../../catalog/rates.js';
import {
  findHostBySlug,
  hostDetails,
  insertHost,
  listHosts,
  setHostStatus,
  SlugTakenError,
  updateHostProfile,
  type Host,
} from '../../store/hosts.js';
import { freshnessOf, isStale, type Freshness } from '../../store/freshness.js';
import { importRates, listRates } from '../../store/rates.js';
import { checkedProfileChange, ProfileChangeBody, refuseUnknownProfileFields } from '../profile-schema.js';
import { listProducts } from '../../store/products.js';
import { listSyncRuns } from '../../store/sync-runs.js';
import { checkAdminToken } from '../auth.js';
import type { AppContext } from '../context.js';
import { decodeCursor, encodeCursor } from '../paging.js';
import { Problem } from '../problems.js';

// Text PostgreSQL can store: no U+0000, no UTF-16 surrogate without its pair (patterns are compiled with the u flag,
// so a proper pair is one code point outside the class).
const STORABLE_TEXT = '^[^\\u0000\\ud800-\\udfff]*$';

const CreateHostBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: STORABLE_TEXT }),
    slug: Type.Optional(Type.String({ pattern: HOST_SLUG_PATTERN })),
    default_currency: Type.Optional(Type.String({ pattern: CURRENCY_CODE_PATTERN })),
  },
  { additionalProperties: false },
);
const CreateCategoryBody = Type.Object(
  {
    slug: Type.String({ pattern: CATEGORY_SLUG_PATTERN }),
    label: Type.String({ minLength: 1, maxLength: 200, pattern: STORABLE_TEXT }),
  },
  { additionalProperties: false },
);
const SlugParams = Type.Object({ slug: Type.String({ maxLength: 100 }) });
const KeyParams = Type.Object({ key_id: Type.String({ maxLength: 100 }) });
const RatesImportQuery = Type.Object({
  source: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: STORABLE_TEXT })),
});
const RatesListQuery = Type.Object({
  currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});
/** The ECB's rates file is a few kilobytes a day; its whole history since 1999 about 7 MB. */
const RATES_BODY_LIMIT = 16 * 1024 * 1024;

const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});
const ProductsQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('inactive'), Type.Literal('all')], { default: 'active' }),
    ),
  }),
]);

function publicHost({ id: _id, ...host }: Host): Omit<Host, 'id'> {
  return host;
}

/** A host as the operator sees it in listings: with whether it is stale (docs/directory-api.md, "Verified freshness"). */
function listedHost(host: Host, freshness: Freshness): Omit<Host, 'id'> & { stale: boolean } {
  return { ...publicHost(host), stale: isStale(host.confirmed_at, freshness) };
}

export const adminRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { db } = context;

  async function hostOr404(slug: string): Promise<Host> {
    const host = await findHostBySlug(db, slug);
    if (!host) throw new Problem('NOT_FOUND', `no host with slug "${slug}"`);
    return host;
  }

  await app.register(
    async (admin) => {
      admin.addHook('onRequest', async (request) => checkAdminToken(context.adminToken, request));

      admin.post<{ Body: Static<typeof CreateHostBody> }>(
        '/hosts',
        { schema: { body: CreateHostBody } },
        async (request, reply) => {
          const name = request.body.name.trim();
          const slug = request.body.slug ?? slugFromName(name);
          const currency = (request.body.default_currency ?? 'USD').toUpperCase();
          const errors = [];
          if (!name) errors.push({ pointer: '/name', code: 'min_length', detail: 'must not be blank' });
          if (!isHostSlug(slug)) {
            errors.push({
              pointer: request.body.slug ? '/slug' : '/name',
              code: 'pattern',
              detail: `no valid slug can be made from "${name}"; pass one`,
            });
          }
          if (!isKnownCurrency(currency))
            errors.push({
              pointer: '/default_currency',
              code: 'currency',
              detail: `"${currency}" is not an ISO 4217 code`,
            });
          if (errors.length > 0)
            throw new Problem('VALIDATION_FAILED', `${errors.length} problem(s) in the body`, { errors });
          try {
            const result = await db.transaction(async (tx) => {
              const host = await insertHost(tx, { slug, name, default_currency: currency });
              const apiKey = await issueApiKey(tx, host.id);
              return { host: publicHost(host), api_key: apiKey };
            });
            return reply.status(201).send(result);
          } catch (error) {
            if (error instanceof SlugTakenError) throw new Problem('CONFLICT', error.message);
            throw error;
          }
        },
      );

      admin.get('/hosts', async () => {
        const freshness = freshnessOf(context.config.staleAfterDays, true);
        return { hosts: (await listHosts(db)).map((host) => listedHost(host, freshness)) };
      });

      admin.patch<{ Params: Static<typeof SlugParams>; Body: ProfileChangeBody }>(
        '/hosts/:slug',
        { schema: { params: SlugParams, body: ProfileChangeBody }, preValidation: refuseUnknownProfileFields },
        async (request) => {
          const host = await updateHostProfile(db, { slug: request.params.slug }, checkedProfileChange(request.body));
          if (!host) throw new Problem('NOT_FOUND', `no host with slug "${request.params.slug}"`);
          return { host: publicHost(host) };
        },
      );

      // Rates arrive as the ECB's XML or as the JSON form (docs/directory-api.md, "Currencies"); both are read as text here.
      admin.addContentTypeParser(
        ['application/xml', 'text/xml'],
        { parseAs: 'string', bodyLimit: RATES_BODY_LIMIT },
        (_request, body, done) => {
          done(null, body);
        },
      );
      admin.post<{ Querystring: Static<typeof RatesImportQuery>; Body: unknown }>(
        '/rates',
        { schema: { querystring: RatesImportQuery }, bodyLimit: RATES_BODY_LIMIT },
        async (request) => {
          const isXml = typeof request.body === 'string';
          let days;
          try {
            days = isXml ? parseRatesFile(request.body as string) : parseRatesJson(request.body);
          } catch (error) {
            if (error instanceof RatesFormatError) {
              throw new Problem(
                'VALIDATION_FAILED',
                `${error.problems.length} problem(s) in the rates; nothing was changed`,
                { errors: error.problems },
              );
            }
            throw error;
          }
          const source = request.query.source ?? (isXml ? 'ECB euro foreign exchange reference rates' : 'JSON import');
          return { import: await importRates(db, days, source) };
        },
      );

      admin.get<{ Querystring: Static<typeof RatesListQuery> }>(
        '/rates',
        { schema: { querystring: RatesListQuery } },
        async (request) => {
          const currency = request.query.currency?.toUpperCase();
          return {
            base: 'EUR',
            rates: await listRates(db, { ...(currency ? { currency } : {}), limit: request.query.limit ?? 100 }),
          };
        },
      );

      admin.get<{ Params: Static<typeof SlugParams> }>(
        '/hosts/:slug',
        { schema: { params: SlugParams } },
        async (request) => {
          const host = await hostOr404(request.params.slug);
          const { id: _id, ...details } = await hostDetails(db, host);
          return {
            host: { ...details, stale: isStale(host.confirmed_at, freshnessOf(context.config.staleAfterDays, true)) },
          };
        },
      );

      for (const [action, status] of [
        ['suspend', 'suspended'],
        ['activate', 'active'],
      ] as const) {
        admin.post<{ Params: Static<typeof SlugParams> }>(
          `/hosts/:slug/${action}`,
          { schema: { params: SlugParams } },
          async (request) => {
            const host = await setHostStatus(db, request.params.slug, status);
            if (!host) throw new Problem('NOT_FOUND', `no host with slug "${request.params.slug}"`);
            return { host: publicHost(host) };
          },
        );
      }

      admin.post<{ Params: Static<typeof SlugParams> }>(
        '/hosts/:slug/keys',
        { schema: { params: SlugParams } },
        async (request, reply) => {
          const host = await hostOr404(request.params.slug);
          return reply.status(201).send({ api_key: await issueApiKey(db, host.id) });
        },
      );

      admin.get<{ Params: Static<typeof SlugParams> }>(
        '/hosts/:slug/keys',
        { schema: { params: SlugParams } },
        async (request) => {
          const host = await hostOr404(request.params.slug);
          return { keys: await listApiKeys(db, host.id) };
        },
      );

      admin.post<{ Params: Static<typeof KeyParams> }>(
        '/keys/:key_id/revoke',
        { schema: { params: KeyParams } },
        async (request) => {
          const key = await revokeApiKey(db, request.params.key_id);
          if (!key) throw new Problem('NOT_FOUND', `no API key with id "${request.params.key_id}"`);
          return { api_key: key };
        },
      );

      admin.get<{ Params: Static<typeof SlugParams>; Querystring: Static<typeof ProductsQuery> }>(
        '/hosts/:slug/products',
        { schema: { params: SlugParams, querystring: ProductsQuery } },
        async (request) => {
          const host = await hostOr404(request.params.slug);
          const page = await listProducts(db, host.id, {
            status: request.query.status ?? 'active',
            limit: request.query.limit ?? 100,
            afterId: decodeCursor(request.query.cursor),
          });
          return { products: page.products, next_cursor: encodeCursor(page.lastId, page.more) };
        },
      );

      admin.get<{ Params: Static<typeof SlugParams>; Querystring: Static<typeof PageQuery> }>(
        '/hosts/:slug/syncs',
        { schema: { params: SlugParams, querystring: PageQuery } },
        async (request) => {
          const host = await hostOr404(request.params.slug);
          const page = await listSyncRuns(db, host.id, {
            limit: Math.min(request.query.limit ?? 100, 100),
            beforeId: decodeCursor(request.query.cursor),
          });
          return { runs: page.runs, next_cursor: encodeCursor(page.lastId, page.more) };
        },
      );

      admin.get('/categories', async () => ({ categories: await listCategories(db) }));

      admin.post<{ Body: Static<typeof CreateCategoryBody> }>(
        '/categories',
        { schema: { body: CreateCategoryBody } },
        async (request, reply) => {
          try {
            const category = await addCategory(db, { slug: request.body.slug, label: request.body.label.trim() });
            return reply.status(201).send({ category });
          } catch (error) {
            if (error instanceof CategoryExistsError) throw new Problem('CONFLICT', error.message);
            throw error;
          }
        },
      );
    },
    { prefix: '/admin/v1' },
  );
};
