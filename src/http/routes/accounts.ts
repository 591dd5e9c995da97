// Providers' own accounts: join, confirm the address, sign in by a mailed one-time link, sign out. With the dashboard
// (dashboard.ts), in a scope of their own: form bodies, the encrypted session cookie and CSRF tokens stop there.
import { hkdfSync } from 'node:crypto';
import fastifyCsrfProtection from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySecureSession from '@fastify/secure-session';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  digestOf,
  isLinkToken,
  LINK_TTL_SECONDS,
  LINKS_PER_ADDRESS_PER_HOUR,
  lookAlikeOf,
  newDomainToken,
  newLinkToken,
  newSessionId,
  normalDomain,
  normalEmail,
  SESSION_TTL_SECONDS,
} from '../../accounts/rules.js';
import { isHostSlug, slugFromName } from '../../catalog/slugs.js';
import {
  DomainTakenError,
  EmailTakenError,
  endSession,
  findPersonByEmail,
  findSession,
  hostNamesAndSlugs,
  linksSentRecently,
  recordAudit,
  signUp,
  startSession,
  storeLink,
  useLink,
  type Person,
  type SignedIn,
} from '../../store/accounts.js';
import { SlugTakenError } from '../../store/hosts.js';
import { checkMailPage, joinPage, linkPage, messagePage, signInPage, type FieldError } from '../../web/accounts.js';
import type { Html } from '../../web/html.js';
import type { AppContext } from '../context.js';
import { Problem } from '../problems.js';
import { publicBaseUrl } from '../public-url.js';
import { dashboardRoutes } from './dashboard.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** the person signed in, on dashboard routes */
    person?: SignedIn;
  }
}

declare module '@fastify/secure-session' {
  interface SessionData {
    /** the session's id; its digest is the server's record (person_sessions) */
    sid: string;
    _csrf: string;
  }
}

/** Sign-in link requests and link uses per client address per window: past them, 429. */
const LINK_REQUESTS_PER_CLIENT = { max: 10, timeWindow: 15 * 60 * 1000 };
const LINK_USES_PER_CLIENT = { max: 20, timeWindow: 15 * 60 * 1000 };

export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply.status(status).type('text/html; charset=utf-8').send(page.value);
}

/** The session cookie's key: derived from the admin token, which every process sharing the database shares. */
export function sessionKey(adminToken: string): Buffer {
  return Buffer.from(hkdfSync('sha256', adminToken, 'hostdir', 'provider session cookie', 32));
}

/** The person a request's session belongs to, checked against the server's record; null when signed out. */
export async function signedInPerson(context: AppContext, request: FastifyRequest): Promise<SignedIn | null> {
  const sid = request.session.get('sid');
  if (typeof sid !== 'string' || sid.length !== 64) return null;
  return findSession(context.db, digestOf(sid));
}

/** Mails a one-time link to a person: to confirm their address, or to sign in. */
async function mailLink(
  context: AppContext,
  request: FastifyRequest,
  person: Person,
  purpose: 'confirm' | 'sign-in',
): Promise<void> {
  const token = newLinkToken();
  await storeLink(context.db, {
    digest: digestOf(token),
    personId: person.id,
    email: person.email,
    ttlSeconds: LINK_TTL_SECONDS,
  });
  const url = `${publicBaseUrl(context.config, request)}/providers/link?token=${token}`;
  const text =
    purpose === 'confirm'
      ? `Welcome to hostdir.\n\nConfirm your address and open your dashboard:\n\n${url}\n\n`
      : `Sign in to your dashboard on hostdir:\n\n${url}\n\n`;
  await context.mailer.send({
    to: person.email,
    subject: purpose === 'confirm' ? 'Confirm your address for hostdir' : 'Your hostdir sign-in link',
    text: `${text}The link works once, for ${LINK_TTL_SECONDS / 60} minutes. If you did not ask for it, ignore this mail.\n`,
  });
}

function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  if (typeof body !== 'object' || body === null) return {};
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') values[name] = value.slice(0, 1000);
  }
  return values;
}

/** A page for a refusal of this scope: the problem's status and headers, said in words. */
function problemPage(reply: FastifyReply, status: number, title: string, message: string, headers = {}): FastifyReply {
  return sendPage(
    reply.headers(headers),
    messagePage(title, message, { href: '/providers/sign-in', label: 'Sign in' }),
    status,
  );
}

async function joinRoutes(app: FastifyInstance, context: AppContext): Promise<void> {
  const { db } = context;

  app.get('/providers', async (_request, reply) => reply.redirect('/providers/dashboard', 303));

  app.get('/providers/join', async (_request, reply) => sendPage(reply, joinPage(reply.generateCsrf())));

  app.post('/providers/join', { preHandler: app.csrfProtection }, async (request, reply) => {
    const form = formOf(request);
    const errors: FieldError[] = [];
    const email = normalEmail(form.email ?? '');
    if (!email) errors.push({ field: 'email', message: 'Enter an email address, such as you@acme-hosting.example' });
    const name = (form.name ?? '').trim().replace(/\s+/g, ' ');
    const slug = slugFromName(name);
    if (!name || name.length > 200 || !isHostSlug(slug))
      errors.push({ field: 'name', message: "Enter your company's name (letters or digits, up to 200 characters)" });
    const domain = normalDomain(form.website ?? '');
    if (!domain) errors.push({ field: 'website', message: 'Enter your website, such as acme-hosting.example' });
    if (name && isHostSlug(slug)) {
      const existing = await hostNamesAndSlugs(db);
      const alike = lookAlikeOf(name, existing) ?? lookAlikeOf(slug, existing);
      if (alike)
        errors.push({
          field: 'name',
          message: `“${name}” is too close to “${alike}”, already in the directory; choose a name visitors cannot mistake for it`,
        });
    }
    const again = async () => sendPage(reply, joinPage(reply.generateCsrf(), form, errors), 422);
    if (errors.length > 0 || !email || !domain) return again();
    try {
      const { hostId, person } = await signUp(db, {
        name,
        slug,
        currency: 'USD',
        domain,
        token: newDomainToken(),
        email,
      });
      await recordAudit(db, hostId, { actor: email, action: 'signed up', detail: `${name} (${domain})` });
      await mailLink(context, request, person, 'confirm');
      return sendPage(reply, checkMailPage(email, 'confirm'));
    } catch (error) {
      if (error instanceof DomainTakenError)
        errors.push({ field: 'website', message: `${domain} belongs to a provider in the directory already` });
      else if (error instanceof EmailTakenError)
        errors.push({ field: 'email', message: `${email} signs in for a provider already; sign in instead` });
      else if (error instanceof SlugTakenError)
        errors.push({ field: 'name', message: `“${name}” is taken; choose another name` });
      else throw error;
      return again();
    }
  });

  app.get('/providers/sign-in', async (_request, reply) => sendPage(reply, signInPage(reply.generateCsrf())));

  app.post(
    '/providers/sign-in',
    { preHandler: app.csrfProtection, config: { rateLimit: LINK_REQUESTS_PER_CLIENT } },
    async (request, reply) => {
      const form = formOf(request);
      const email = normalEmail(form.email ?? '');
      if (!email) {
        const errors = [{ field: 'email', message: 'Enter the email address you signed up with' }];
        return sendPage(reply, signInPage(reply.generateCsrf(), form.email ?? '', errors), 422);
      }
      if ((await linksSentRecently(db, email, 3600)) >= LINKS_PER_ADDRESS_PER_HOUR) {
        return problemPage(
          reply,
          429,
          'Too many links asked for',
          `${LINKS_PER_ADDRESS_PER_HOUR} links were mailed to this address within the hour; use the last one, or ask again later.`,
          { 'retry-after': '3600' },
        );
      }
      // The same answer whether or not the address is known: this page tells no one who has an account.
      const person = await findPersonByEmail(db, email);
      if (person) await mailLink(context, request, person, 'sign-in');
      return sendPage(reply, checkMailPage(email, 'sign-in'));
    },
  );

  // A link opens a page with a button rather than signing in at once: mail scanners that fetch every link would
  // otherwise use it up.
  app.get<{ Querystring: { token?: string } }>(
    '/providers/link',
    { config: { rateLimit: LINK_USES_PER_CLIENT } },
    async (request, reply) => {
      const token = typeof request.query.token === 'string' ? request.query.token : '';
      if (!isLinkToken(token))
        return problemPage(
          reply,
          400,
          'This link is not whole',
          'Copy the whole link from the mail, or ask for a new one.',
        );
      return sendPage(reply, linkPage(reply.generateCsrf(), token));
    },
  );

  app.post(
    '/providers/link',
    { preHandler: app.csrfProtection, config: { rateLimit: LINK_USES_PER_CLIENT } },
    async (request, reply) => {
      const token = formOf(request).token ?? '';
      const used = isLinkToken(token) ? await useLink(db, digestOf(token)) : null;
      if (!used)
        return problemPage(
          reply,
          400,
          'This link does not work any more',
          'A link works once, for 30 minutes. Ask for a new one.',
        );
      // A new session, never the one the browser came with (session fixation): what it held is dropped.
      request.session.regenerate();
      const sid = newSessionId();
      await startSession(db, {
        digest: digestOf(sid),
        personId: used.personId,
        hostId: used.hostId,
        ttlSeconds: SESSION_TTL_SECONDS,
      });
      request.session.set('sid', sid);
      const person = await findSession(db, digestOf(sid));
      await recordAudit(db, used.hostId, { actor: person?.email ?? used.personId, action: 'signed in' });
      return reply.redirect('/providers/dashboard', 303);
    },
  );

  app.post('/providers/sign-out', { preHandler: app.csrfProtection }, async (request, reply) => {
    const sid = request.session.get('sid');
    if (typeof sid === 'string') await endSession(db, digestOf(sid));
    request.session.delete();
    return sendPage(
      reply,
      messagePage('Signed out', 'You are signed out.', { href: '/providers/sign-in', label: 'Sign in again' }),
    );
  });
}

/** Refusals inside the scope, as pages: rate limits, CSRF, a body that is no form. */
function answerAsPages(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | Problem, _request, reply) => {
    if (error instanceof Problem && error.status === 429) {
      return problemPage(reply, 429, 'Too many tries', error.detail, error.extra.headers);
    }
    if (typeof error.code === 'string' && error.code.startsWith('FST_CSRF')) {
      return problemPage(
        reply,
        403,
        'This form has expired',
        'The form was not sent from this site, or your session changed since it was shown. Go back, load the page again and send it once more.',
      );
    }
    throw error;
  });
}

export const providerAreaRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  const { config } = context;
  await app.register(fastifyFormbody, { bodyLimit: 64 * 1024 });
  await app.register(fastifySecureSession, {
    key: sessionKey(context.adminToken),
    cookieName: 'hostdir_session',
    expiry: SESSION_TTL_SECONDS,
    cookie: {
      path: '/providers',
      httpOnly: true,
      sameSite: 'lax',
      // Secure when the directory is served over TLS: PUBLIC_URL says so, or the request came over it.
      secure: config.publicUrl?.startsWith('https:') ? true : 'auto',
    },
  });
  await app.register(fastifyCsrfProtection, { sessionPlugin: '@fastify/secure-session' });
  await app.register(fastifyRateLimit, {
    global: false,
    errorResponseBuilder: (_request, limit) =>
      new Problem('RATE_LIMITED', `too many tries from this address; try again in ${limit.after}`, {
        headers: { 'retry-after': String(Math.ceil(limit.ttl / 1000)) },
      }),
  });
  answerAsPages(app);
  await joinRoutes(app, context);
  await dashboardRoutes(app, context);
};
