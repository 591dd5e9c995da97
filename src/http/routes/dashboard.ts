// A provider's dashboard: every route needs a session whose record the server still holds; every form a CSRF token.
// Each read and change is keyed by the signed-in person's host: another provider's key, run or person is not found.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkDomain } from '../../accounts/domain-proof.js';
import { MAX_ACTIVE_KEYS, normalEmail } from '../../accounts/rules.js';
import { checkProfileChange, PROFILE_FIELDS, type ProfileChange } from '../../catalog/host-profile.js';
import { issueApiKey, listApiKeys, revokeHostApiKey } from '../../store/api-keys.js';
import {
  EmailTakenError,
  findHostDomain,
  invitePerson,
  listAudit,
  listPeople,
  markDomainVerified,
  recordAudit,
  recordDomainCheck,
  removePerson,
} from '../../store/accounts.js';
import { findHostById, updateHostProfile, type Host } from '../../store/hosts.js';
import { listCategories } from '../../store/categories.js';
import { findPreviewProducts } from '../../store/directory/listed-product.js';
import { dayBefore, freshnessOf } from '../../store/freshness.js';
import { readPriceContext } from '../../store/rates.js';
import type { PageFilters } from '../../web/page-filters.js';
import { PRICE_DROP_DAYS } from '../directory-query.js';
import { pricedProduct, unconvertedAmong } from '../listed-prices.js';
import { pageView, priceDisplay } from '../page-listing.js';
import { findSyncRun, listRefusalReports, listSyncRuns } from '../../store/sync-runs.js';
import {
  auditPage,
  keysPage,
  overviewPage,
  peoplePage,
  previewPage,
  profilePage,
  runPage,
  syncsPage,
} from '../../web/dashboard.js';
import { messagePage } from '../../web/accounts.js';
import type { AppContext } from '../context.js';
import { publicBaseUrl } from '../public-url.js';
import { sendPage, signedInPerson } from './accounts.js';

function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  if (typeof body !== 'object' || body === null) return {};
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') values[name] = value.slice(0, 2000);
  }
  return values;
}

function notFound(reply: FastifyReply, what: string): FastifyReply {
  return sendPage(
    reply,
    messagePage('Not found', what, { href: '/providers/dashboard', label: 'Back to the dashboard' }),
    404,
  );
}

function profileValues(host: Host): Record<string, string> {
  return Object.fromEntries(PROFILE_FIELDS.map((field) => [field, host[field] ?? '']));
}

export async function dashboardRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const { db, config } = context;

  await app.register(async (dashboard) => {
    // Signed in, or sent to sign in: a page to read redirects, a form sent without a session is refused.
    dashboard.addHook('preHandler', async (request, reply) => {
      const person = await signedInPerson(context, request);
      if (person) {
        request.person = person;
        return;
      }
      if (request.method === 'GET') return reply.redirect('/providers/sign-in', 303);
      return sendPage(
        reply,
        messagePage('Signed out', 'Your session has ended; sign in again.', {
          href: '/providers/sign-in',
          label: 'Sign in',
        }),
        401,
      );
    });
    const csrf = (reply: FastifyReply) => reply.generateCsrf();
    const host = async (request: FastifyRequest): Promise<Host> => (await findHostById(db, request.person!.hostId))!;
    const audit = (request: FastifyRequest, action: string, detail?: string) =>
      recordAudit(db, request.person!.hostId, { actor: request.person!.email, action, detail: detail ?? null });
    const protectedForm = { preHandler: dashboard.csrfProtection };

    dashboard.get('/providers/dashboard', async (request, reply) => {
      const hostId = request.person!.hostId;
      const [current, domain, runs, refusals, keys] = await Promise.all([
        host(request),
        findHostDomain(db, hostId),
        listSyncRuns(db, hostId, { limit: 20, beforeId: null }),
        listRefusalReports(db, hostId),
        listApiKeys(db, hostId),
      ]);
      return sendPage(
        reply,
        overviewPage(request.person!, csrf(reply), {
          host: current,
          domain,
          lastRun: runs.runs.find((run) => !run.dry_run) ?? runs.runs[0] ?? null,
          lastRefusal: refusals[0] ?? null,
          activeKeys: keys.filter((key) => key.status === 'active').length,
        }),
      );
    });

    dashboard.post('/providers/domain/check', protectedForm, async (request, reply) => {
      const hostId = request.person!.hostId;
      const domain = await findHostDomain(db, hostId);
      if (domain && !domain.verified_at) {
        const check = await checkDomain(domain.domain, domain.token, {
          allowPrivate: config.allowPrivateTargets,
          dnsServers: config.domainProofDnsServers,
          httpPort: config.domainProofHttpPort,
        });
        if (check.verified) {
          const how = check.how === 'dns' ? 'DNS TXT record' : 'well-known file';
          const proved = await markDomainVerified(db, hostId, config.requireApproval, `proved by its ${how}`);
          await audit(request, 'domain proved', `${domain.domain} (${how})`);
          if (proved.approval === 'pending') await audit(request, 'approval requested');
        } else {
          await recordDomainCheck(db, hostId, check.why);
        }
      }
      return reply.redirect('/providers/dashboard', 303);
    });

    const keysView = async (request: FastifyRequest, reply: FastifyReply, extra: Parameters<typeof keysPage>[3]) => {
      const keys = await listApiKeys(db, request.person!.hostId);
      return keysPage(request.person!, csrf(reply), keys, extra);
    };
    /** Why no key may be created now, or null. */
    const keyRefusal = async (request: FastifyRequest): Promise<string | null> => {
      const hostId = request.person!.hostId;
      const domain = await findHostDomain(db, hostId);
      if (domain && !domain.verified_at) return 'Prove your domain first (see the overview): then create a key.';
      const active = (await listApiKeys(db, hostId)).filter((key) => key.status === 'active').length;
      if (active >= MAX_ACTIVE_KEYS) return `${MAX_ACTIVE_KEYS} keys are active: revoke one before creating another.`;
      return null;
    };

    dashboard.get('/providers/keys', async (request, reply) =>
      sendPage(reply, await keysView(request, reply, { canCreate: await keyRefusal(request) })),
    );

    dashboard.post('/providers/keys', protectedForm, async (request, reply) => {
      const name = (formOf(request).name ?? '').trim();
      const refusal = await keyRefusal(request);
      if (refusal !== null) return sendPage(reply, await keysView(request, reply, { canCreate: refusal }), 409);
      if (!name || name.length > 100) {
        const errors = [{ field: 'name', message: 'Name the key (up to 100 characters), e.g. billing' }];
        return sendPage(reply, await keysView(request, reply, { canCreate: null, errors }), 422);
      }
      const issued = await issueApiKey(db, request.person!.hostId, name);
      await audit(request, 'key created', `${name} (rk_${issued.prefix}…)`);
      // Shown once, in this answer; no cache keeps it (Cache-Control is private, no-store for every such answer).
      return sendPage(reply, await keysView(request, reply, { issued, canCreate: await keyRefusal(request) }), 201);
    });

    dashboard.post<{ Params: { key_id: string } }>(
      '/providers/keys/:key_id/revoke',
      protectedForm,
      async (request, reply) => {
        const key = await revokeHostApiKey(db, request.person!.hostId, request.params.key_id.slice(0, 100));
        if (!key) return notFound(reply, 'Your provider has no such key.');
        await audit(request, 'key revoked', `${key.name ?? 'unnamed'} (rk_${key.prefix}…)`);
        return reply.redirect('/providers/keys', 303);
      },
    );

    dashboard.get('/providers/syncs', async (request, reply) => {
      const hostId = request.person!.hostId;
      const [runs, refusals] = await Promise.all([
        listSyncRuns(db, hostId, { limit: 100, beforeId: null }),
        listRefusalReports(db, hostId),
      ]);
      return sendPage(reply, syncsPage(request.person!, csrf(reply), runs.runs, refusals));
    });

    dashboard.get<{ Params: { sync_id: string } }>('/providers/syncs/:sync_id', async (request, reply) => {
      const run = await findSyncRun(db, request.person!.hostId, request.params.sync_id.slice(0, 100));
      if (!run) return notFound(reply, 'Your provider has no such sync run.');
      return sendPage(reply, runPage(request.person!, csrf(reply), run));
    });

    dashboard.get('/providers/profile', async (request, reply) =>
      sendPage(reply, profilePage(request.person!, csrf(reply), profileValues(await host(request)))),
    );

    dashboard.post('/providers/profile', protectedForm, async (request, reply) => {
      const form = formOf(request);
      const change: ProfileChange = {};
      for (const field of PROFILE_FIELDS) {
        const value = (form[field] ?? '').trim();
        change[field] = value === '' ? null : value;
      }
      const checked = checkProfileChange(change);
      if (!checked.ok) {
        const errors = checked.problems.map((p) => {
          const field = p.pointer.replace(/^\//, '');
          return { field, message: `${field.replaceAll('_', ' ')}: ${p.detail}` };
        });
        return sendPage(reply, profilePage(request.person!, csrf(reply), form, { errors }), 422);
      }
      const before = await host(request);
      const after = (await updateHostProfile(db, { id: request.person!.hostId }, checked.values))!;
      const changed = PROFILE_FIELDS.filter((field) => before[field] !== after[field]);
      if (changed.length > 0) await audit(request, 'profile changed', changed.join(', '));
      return sendPage(reply, profilePage(request.person!, csrf(reply), profileValues(after), { saved: true }));
    });

    dashboard.get('/providers/preview', async (request, reply) => {
      const current = await host(request);
      const [products, prices, categories] = await Promise.all([
        findPreviewProducts(db, current.id, freshnessOf(config.staleAfterDays, true), dayBefore(PRICE_DROP_DAYS), 60),
        readPriceContext(db),
        listCategories(db),
      ]);
      const filters: PageFilters = { sort: 'price' };
      const view = pageView(context, filters, prices);
      const priced = products.map((product) => pricedProduct(product, view));
      const display = priceDisplay(view, filters, unconvertedAmong(prices, products, []));
      return sendPage(
        reply,
        previewPage(request.person!, csrf(reply), current, { products: priced, categories, prices: display }),
      );
    });

    dashboard.get('/providers/people', async (request, reply) =>
      sendPage(reply, peoplePage(request.person!, csrf(reply), await listPeople(db, request.person!.hostId))),
    );

    dashboard.post('/providers/people', protectedForm, async (request, reply) => {
      const email = normalEmail(formOf(request).email ?? '');
      const again = async (message: string) =>
        sendPage(
          reply,
          peoplePage(request.person!, csrf(reply), await listPeople(db, request.person!.hostId), [
            { field: 'email', message },
          ]),
          422,
        );
      if (!email) return again('Enter an email address');
      try {
        await invitePerson(db, request.person!.hostId, email, request.person!.email);
      } catch (error) {
        if (error instanceof EmailTakenError) return again(`${email} signs in for a provider already`);
        throw error;
      }
      await audit(request, 'person invited', email);
      await context.mailer.send({
        to: email,
        subject: `You were invited to ${request.person!.hostName} on hostdir`,
        text: `${request.person!.email} invited you to the dashboard of ${request.person!.hostName} on hostdir.\n\nSign in with this address at ${publicBaseUrl(config, request)}/providers/sign-in: we mail you a link that signs you in.\n`,
      });
      return reply.redirect('/providers/people', 303);
    });

    dashboard.post<{ Params: { person_id: string } }>(
      '/providers/people/:person_id/remove',
      protectedForm,
      async (request, reply) => {
        const removed = await removePerson(db, request.person!.hostId, request.params.person_id.slice(0, 100));
        if (!removed) return notFound(reply, 'Your provider has no such person.');
        await audit(request, 'person removed', removed.email);
        return reply.redirect('/providers/people', 303);
      },
    );

    dashboard.get('/providers/audit', async (request, reply) =>
      sendPage(reply, auditPage(request.person!, csrf(reply), await listAudit(db, request.person!.hostId))),
    );
  });
}
