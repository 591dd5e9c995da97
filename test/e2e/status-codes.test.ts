// Every status code the sync endpoint answers today (contract sections 3, 5 and 6) with its problem+json shape and
// headers, the order of the steps, and that a refused request changes nothing; over HTTP, for both stores.
import { request as httpRequest } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync, type Answer } from '../support/api.js';
import {
  ADMIN_DATABASE_URL,
  STORES,
  createTestDatabase,
  describeOnPostgres,
  freePort,
  startServer,
  type TestServer,
} from '../support/server.js';
import { expectProblem, listingOf, snapshotOf } from './assertions.js';

const SYNC = '/api/v1/sync/products';
const MAX_BODY_BYTES = 4096;
const MAX_PRODUCTS = 5;
const CHALLENGE = 'Bearer realm="hostdir"';
const PRODUCT_ID = /^prd_[0-9A-HJKMNP-TV-Z]{26}$/;
const UNKNOWN_KEY = `rk_${'0123456789abcdef'.repeat(4)}`;

/** A small valid product (about 60 bytes), for payloads that must stay under the body limit. */
function small(externalId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { external_id: externalId, name: `Plan ${externalId}`, category: 'web_shared', price: 2.5, ...overrides };
}

/** A syntactically valid catalogue larger than MAX_BODY_BYTES. */
function oversizedCatalogue(): string {
  const products = Array.from({ length: 20 }, (_, i) => product(`big-${i}`));
  const text = JSON.stringify({ products });
  expect(Buffer.byteLength(text)).toBeGreaterThan(MAX_BODY_BYTES);
  return text;
}

function rawSync(
  server: TestServer,
  options: { key?: string; body: string | Buffer; contentType?: string; headers?: Record<string, string> },
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  return call(server, 'POST', SYNC, { ...(options.key ? { token: options.key } : {}), body: options.body, headers });
}

/** A POST with `Transfer-Encoding: chunked` and no Content-Length, written in pieces with node:http. */
function chunkedSync(
  server: TestServer,
  key: string,
  pieces: string[],
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${server.url}${SYNC}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
        );
        res.on('error', reject);
      },
    );
    // The server may answer and close before every piece is written; the answer is what counts.
    let answered = false;
    req.on('response', () => (answered = true));
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    req.on('close', () => {
      if (!answered) reject(new Error('the connection closed without an answer'));
    });
    expect(req.getHeader('content-length')).toBeUndefined();
    for (const piece of pieces) req.write(piece);
    req.end();
  });
}

function expectRateLimitHeaders(answer: Answer, remaining: number): void {
  expect(answer.headers.get('ratelimit-policy')).toBe('"sync";q=1;w=300');
  const header = answer.headers.get('ratelimit') ?? '';
  const match = /^"sync";r=(\d+);t=(\d+)$/.exec(header);
  expect(match, `RateLimit: ${header}`).not.toBeNull();
  expect(Number(match![1])).toBe(remaining);
  expect(Number(match![2])).toBeLessThanOrEqual(300);
}

describe.each(STORES)('status codes of the sync endpoint (%s store)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    // The default rate limit (1 applied sync per 300 s): every test onboards the hosts it needs.
    server = await startServer(store, {
      env: { MAX_BODY_BYTES: String(MAX_BODY_BYTES), MAX_PRODUCTS: String(MAX_PRODUCTS) },
    });
  });

  afterAll(async () => {
    await server?.stop();
  });

  describe('200', () => {
    it('answers an applied sync with the full result, products in request order', async () => {
      const host = await onboard(server, 'Status Ok Hosting');
      const answer = await sync(server, host.key, [small('zeta'), small('alpha'), small('mid')]);

      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(answer.body).sort()).toEqual(
        ['applied_at', 'deactivated', 'dry_run', 'duration_ms', 'host', 'products', 'summary', 'sync_id'].sort(),
      );
      expect(answer.body.sync_id).toMatch(/^syn_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(answer.body.dry_run).toBe(false);
      expect(answer.body.host).toBe(host.slug);
      expect(answer.body.summary).toEqual({
        received: 3,
        created: 3,
        updated: 0,
        unchanged: 0,
        reactivated: 0,
        deactivated: 0,
      });
      expect(answer.body.products.map((p: any) => [p.external_id, p.action])).toEqual([
        ['zeta', 'created'],
        ['alpha', 'created'],
        ['mid', 'created'],
      ]);
      for (const p of answer.body.products) expect(p.id).toMatch(PRODUCT_ID);
      expect(new Set(answer.body.products.map((p: any) => p.id)).size).toBe(3);
      expect(answer.body.deactivated).toEqual([]);
      expect(new Date(answer.body.applied_at).toISOString()).toBe(answer.body.applied_at);
      expect(Math.abs(Date.now() - Date.parse(answer.body.applied_at))).toBeLessThan(60_000);
      expect(typeof answer.body.duration_ms).toBe('number');
      expect(answer.body.duration_ms).toBeGreaterThanOrEqual(0);
      expect(answer.headers.get('x-request-id')).toBeTruthy();
      expectRateLimitHeaders(answer, 0);

      // What was answered is what the directory now holds.
      const listed = await listingOf(server, host.key);
      expect(listed.map((p) => [p.external_id, p.id]).sort()).toEqual(
        answer.body.products.map((p: any) => [p.external_id, p.id]).sort(),
      );
    });

    it('accepts the Bearer scheme in any case', async () => {
      const host = await onboard(server, 'Lower Case Scheme');
      const answer = await call(server, 'POST', SYNC, {
        headers: { authorization: `bearer ${host.key}` },
        json: { products: [small('one')] },
      });
      expect(answer.status, answer.text).toBe(200);
      const listing = await call(server, 'GET', '/api/v1/products', {
        headers: { authorization: `BEARER ${host.key}` },
      });
      expect(listing.status).toBe(200);
      expect(listing.body.products).toHaveLength(1);
    });

    it('accepts application/json with a charset parameter', async () => {
      const host = await onboard(server, 'Charset Hosting');
      const answer = await rawSync(server, {
        key: host.key,
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify({ products: [small('one')] }),
      });
      expect(answer.status, answer.text).toBe(200);
    });
  });

  describe('200 for a dry run', () => {
    it('answers with the plan, changes nothing and leaves the sync window alone', async () => {
      const host = await onboard(server, 'Dry Run Hosting');
      const dry = await sync(server, host.key, [small('b'), small('a')], '?dry_run=true');
      expect(dry.status, dry.text).toBe(200);
      expect(dry.body).toMatchObject({ dry_run: true, host: host.slug, summary: { received: 2, created: 2 } });
      expect(dry.body.sync_id).toMatch(/^syn_/);
      expect(dry.body.products.map((p: any) => [p.external_id, p.action])).toEqual([
        ['b', 'created'],
        ['a', 'created'],
      ]);
      // Dry runs have a window of their own (section 6); the contract does not spell out its header's name.
      expect(dry.headers.get('ratelimit-policy')).toMatch(/;q=10;w=300$/);
      expect(await listingOf(server, host.key)).toEqual([]);

      const applied = await sync(server, host.key, [small('b'), small('a')]);
      expect(applied.status, applied.text).toBe(200);
      expect(applied.body.dry_run).toBe(false);
      expect(applied.body.summary.created).toBe(2);
      const runs = (await snapshotOf(server, host.slug)).runs as any[];
      expect(runs.map((run) => run.dry_run).sort()).toEqual([false, true]);
    });

    it('has a window of its own: ten per applied sync allowed (SYNC_MAX_PER_WINDOW, default 1)', async () => {
      const host = await onboard(server, 'Many Dry Runs');
      for (let n = 0; n < 10; n++)
        expect((await sync(server, host.key, [small('a')], '?dry_run=true')).status).toBe(200);
      const refused = await sync(server, host.key, [small('a')], '?dry_run=true');
      expectProblem(refused, 'RATE_LIMITED', SYNC);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Dry runs did not use the applied sync's slot.
      expect((await sync(server, host.key, [small('a')])).status).toBe(200);
    });
  });

  describe('Content-Encoding: gzip', () => {
    it('accepts a gzip body and applies the limit to its decoded size', async () => {
      const host = await onboard(server, 'Gzip Hosting');
      const fits = await rawSync(server, {
        key: host.key,
        contentType: 'application/json',
        headers: { 'content-encoding': 'gzip' },
        body: gzipSync(JSON.stringify({ products: [small('zipped')] })),
      });
      expect(fits.status, fits.text).toBe(200);
      expect(fits.body.products[0].external_id).toBe('zipped');

      const other = await onboard(server, 'Gzip Bomb Hosting');
      const bomb = gzipSync(JSON.stringify({ products: [small('x', { description: ' '.repeat(200_000) })] }));
      expect(bomb.length).toBeLessThan(MAX_BODY_BYTES);
      const refused = await rawSync(server, {
        key: other.key,
        contentType: 'application/json',
        headers: { 'content-encoding': 'gzip' },
        body: bomb,
      });
      expectProblem(refused, 'PAYLOAD_TOO_LARGE', SYNC);
      expect(await listingOf(server, other.key)).toEqual([]);
    });
  });

  describe('401 UNAUTHORIZED', () => {
    const body = JSON.stringify({ products: [small('one')] });
    const cases: [string, Record<string, string>][] = [
      ['no Authorization header', {}],
      ['another scheme (Basic)', { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` }],
      ['a malformed key', { authorization: 'Bearer rk_123' }],
      ['a key in upper-case hex', { authorization: `Bearer ${UNKNOWN_KEY.toUpperCase().replace('RK_', 'rk_')}` }],
      ['an unknown well-formed key', { authorization: `Bearer ${UNKNOWN_KEY}` }],
      ['the scheme without a key', { authorization: 'Bearer' }],
    ];

    it.each(cases)('answers %s with 401 and a Bearer challenge', async (_name, headers) => {
      const answer = await rawSync(server, { body, contentType: 'application/json', headers });
      expectProblem(answer, 'UNAUTHORIZED', SYNC);
      expect(answer.headers.get('www-authenticate')).toBe(CHALLENGE);
    });

    it('answers the listing with 401 too', async () => {
      const answer = await call(server, 'GET', '/api/v1/products', { token: UNKNOWN_KEY });
      expectProblem(answer, 'UNAUTHORIZED', '/api/v1/products');
      expect(answer.headers.get('www-authenticate')).toBe(CHALLENGE);
    });

    it('does not accept a real key under another scheme', async () => {
      const host = await onboard(server, 'Wrong Scheme Hosting');
      const answer = await rawSync(server, {
        body,
        contentType: 'application/json',
        headers: { authorization: `Token ${host.key}` },
      });
      expectProblem(answer, 'UNAUTHORIZED', SYNC);
      expect(await listingOf(server, host.key)).toEqual([]);
    });
  });

  describe('403 KEY_REVOKED', () => {
    it('refuses a revoked key while the host’s other key still works', async () => {
      const host = await onboard(server, 'Revoked Key Hosting');
      const second = await admin(server, 'POST', `/hosts/${host.slug}/keys`);
      expect(second.status).toBe(201);
      const revoke = await admin(server, 'POST', `/keys/${host.keyId}/revoke`);
      expect(revoke.status).toBe(200);

      const refused = await sync(server, host.key, [small('one')]);
      expectProblem(refused, 'KEY_REVOKED', SYNC);
      expectProblem(
        await call(server, 'GET', '/api/v1/products', { token: host.key }),
        'KEY_REVOKED',
        '/api/v1/products',
      );

      const accepted = await sync(server, second.body.api_key.key, [small('one')]);
      expect(accepted.status, accepted.text).toBe(200);
    });

    it('refuses every key of a suspended host, and accepts them again after activation', async () => {
      const host = await onboard(server, 'Suspended Hosting');
      expect((await admin(server, 'POST', `/hosts/${host.slug}/suspend`)).status).toBe(200);

      const refused = await sync(server, host.key, [small('one')]);
      expectProblem(refused, 'KEY_REVOKED', SYNC);
      expect((await snapshotOf(server, host.slug)).runs).toEqual([]);

      expect((await admin(server, 'POST', `/hosts/${host.slug}/activate`)).status).toBe(200);
      const accepted = await sync(server, host.key, [small('one')]);
      expect(accepted.status, accepted.text).toBe(200);
      expect(accepted.body.summary.created).toBe(1);
    });
  });

  describe('404 and 405', () => {
    it('answers an unknown path with 404 NOT_FOUND', async () => {
      expectProblem(await call(server, 'GET', '/api/v1/nothing-here?x=1'), 'NOT_FOUND', '/api/v1/nothing-here');
      expectProblem(
        await call(server, 'POST', '/api/v1/sync/everything', { json: {} }),
        'NOT_FOUND',
        '/api/v1/sync/everything',
      );
    });

    it('answers a wrong method on a known path with 405 and an Allow header', async () => {
      const del = await call(server, 'DELETE', SYNC);
      expectProblem(del, 'METHOD_NOT_ALLOWED', SYNC);
      expect(del.headers.get('allow')).toBe('POST');

      const get = await call(server, 'GET', SYNC);
      expectProblem(get, 'METHOD_NOT_ALLOWED', SYNC);
      expect(get.headers.get('allow')).toBe('POST');

      const post = await call(server, 'POST', '/api/v1/products', { json: {} });
      expectProblem(post, 'METHOD_NOT_ALLOWED', '/api/v1/products');
      expect(post.headers.get('allow')?.split(/,\s*/)).toContain('GET');
    });
  });

  describe('413 PAYLOAD_TOO_LARGE', () => {
    it('refuses a body over MAX_BODY_BYTES sent with Content-Length', async () => {
      const host = await onboard(server, 'Large Body Hosting');
      const answer = await rawSync(server, {
        key: host.key,
        contentType: 'application/json',
        body: oversizedCatalogue(),
      });
      expectProblem(answer, 'PAYLOAD_TOO_LARGE', SYNC);
      expectRateLimitHeaders(answer, 1);
    });

    it('refuses a chunked body without Content-Length once it passes MAX_BODY_BYTES', async () => {
      const host = await onboard(server, 'Chunked Body Hosting');
      const text = oversizedCatalogue();
      const pieces = text.match(/[^]{1,1000}/g)!;
      const answer = await chunkedSync(server, host.key, pieces);
      expect(answer.status).toBe(413);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.body).toMatchObject({
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
        instance: SYNC,
        request_id: answer.headers['x-request-id'],
      });
      expect((await snapshotOf(server, host.slug)).runs).toEqual([]);

      // The same route reads a chunked body under the limit.
      const fits = await chunkedSync(
        server,
        host.key,
        JSON.stringify({ products: [small('a'), small('b')] }).match(/[^]{1,40}/g)!,
      );
      expect(fits.status, JSON.stringify(fits.body)).toBe(200);
      expect(fits.body.summary.created).toBe(2);
    });
  });

  describe('415 UNSUPPORTED_MEDIA_TYPE', () => {
    it('refuses text/plain and a body without Content-Type', async () => {
      const host = await onboard(server, 'Media Type Hosting');
      const body = JSON.stringify({ products: [small('one')] });
      const plain = await rawSync(server, { key: host.key, contentType: 'text/plain', body });
      expectProblem(plain, 'UNSUPPORTED_MEDIA_TYPE', SYNC);
      expectRateLimitHeaders(plain, 1);
      const none = await rawSync(server, { key: host.key, body: Buffer.from(body) });
      expectProblem(none, 'UNSUPPORTED_MEDIA_TYPE', SYNC);
      const form = await rawSync(server, {
        key: host.key,
        contentType: 'application/x-www-form-urlencoded',
        body: 'products=1',
      });
      expectProblem(form, 'UNSUPPORTED_MEDIA_TYPE', SYNC);
    });
  });

  describe('422 VALIDATION_FAILED', () => {
    it('answers a body that is not JSON with one invalid_json error at pointer ""', async () => {
      const host = await onboard(server, 'Broken Json Hosting');
      const answer = await rawSync(server, { key: host.key, contentType: 'application/json', body: '{"products": [' });
      const problem = expectProblem(answer, 'VALIDATION_FAILED', SYNC);
      expect(problem.errors).toEqual([{ pointer: '', code: 'invalid_json', detail: expect.any(String) }]);
      expectRateLimitHeaders(answer, 1);
    });

    it("answers a catalogue with one broken product with JSON.parse's message for the whole body, or as not UTF-8", async () => {
      const host = await onboard(server, 'Broken Product Hosting');
      const good = JSON.stringify(small('a'));
      const broken = `{"products": [${good}, {"external_id": "b",}]}`;
      let message = '';
      try {
        JSON.parse(broken);
      } catch (error) {
        message = (error as SyntaxError).message;
      }
      const notJson = expectProblem(
        await rawSync(server, { key: host.key, contentType: 'application/json', body: broken }),
        'VALIDATION_FAILED',
        SYNC,
      );
      expect(notJson.errors).toEqual([{ pointer: '', code: 'invalid_json', detail: message }]);

      const badByte = Buffer.concat([
        Buffer.from(`{"products": [${good}, {"external_id": "b`),
        Buffer.from([0xff]),
        Buffer.from('"}]}'),
      ]);
      const notUtf8 = expectProblem(
        await rawSync(server, { key: host.key, contentType: 'application/json', body: badByte }),
        'VALIDATION_FAILED',
        SYNC,
      );
      expect(notUtf8.errors).toEqual([{ pointer: '', code: 'invalid_json', detail: 'the body is not valid UTF-8' }]);
      expect(await listingOf(server, host.key)).toEqual([]);
    });

    it('collects every error of the payload in one answer', async () => {
      const host = await onboard(server, 'Many Errors Hosting');
      const answer = await call(server, 'POST', SYNC, {
        token: host.key,
        json: {
          products: [
            small('a', { price: -1 }),
            small('b', { category: 'no_such_category' }),
            small('c', { colour: 'blue' }),
            small('a'),
            small('d'),
          ],
          extra: true,
        },
      });
      const problem = expectProblem(answer, 'VALIDATION_FAILED', SYNC);
      const found = problem.errors.map((e: any) => `${e.pointer} ${e.code}`).sort();
      expect(found).toEqual(
        [
          '/extra unknown_field',
          '/products/0/price minimum',
          '/products/1/category enum',
          '/products/2/colour unknown_field',
          '/products/3/external_id duplicate',
        ].sort(),
      );
      for (const error of problem.errors) expect(typeof error.detail).toBe('string');
      const duplicate = problem.errors.find((e: any) => e.code === 'duplicate');
      expect(duplicate.detail).toContain('/products/0');
      const category = problem.errors.find((e: any) => e.code === 'enum');
      expect(category.detail).toContain('vps_cloud');
      expect(problem.truncated).toBeUndefined();
      expect(await listingOf(server, host.key)).toEqual([]);
    });

    it('refuses an empty catalogue', async () => {
      const host = await onboard(server, 'Empty Catalogue Hosting');
      const problem = expectProblem(await sync(server, host.key, []), 'VALIDATION_FAILED', SYNC);
      expect(problem.errors).toHaveLength(1);
      expect(problem.errors[0].pointer).toBe('/products');
    });

    it('refuses more than MAX_PRODUCTS products', async () => {
      const host = await onboard(server, 'Too Many Products');
      const products = Array.from({ length: MAX_PRODUCTS + 1 }, (_, i) => small(`n-${i}`));
      const problem = expectProblem(await sync(server, host.key, products), 'VALIDATION_FAILED', SYNC);
      expect(problem.errors.map((e: any) => e.pointer)).toEqual(['/products']);
      expect((await sync(server, host.key, products.slice(0, MAX_PRODUCTS))).status).toBe(200);
    });

    it('lists at most 100 errors and says that there were more', async () => {
      const host = await onboard(server, 'Error Flood Hosting');
      // Each empty product misses the three required fields (name, external_id, category).
      const problem = expectProblem(
        await sync(
          server,
          host.key,
          Array.from({ length: MAX_PRODUCTS }, () => ({})),
        ),
        'VALIDATION_FAILED',
        SYNC,
      );
      expect(problem.errors).toHaveLength(3 * MAX_PRODUCTS);
      expect(problem.truncated).toBeUndefined();
      // 25 unknown fields and 3 missing ones in each product: 28 × MAX_PRODUCTS errors, more than 100.
      const typos = Object.fromEntries(Array.from({ length: 25 }, (_, k) => [`f${k}`, 1]));
      const flood = await call(server, 'POST', SYNC, {
        token: host.key,
        json: { products: Array.from({ length: MAX_PRODUCTS }, () => typos) },
      });
      const truncated = expectProblem(flood, 'VALIDATION_FAILED', SYNC);
      expect(truncated.errors).toHaveLength(100);
      expect(truncated.truncated).toBe(true);
    });

    it('refuses a body without products and a body that is not an object', async () => {
      const host = await onboard(server, 'Shapeless Hosting');
      const missing = expectProblem(
        await call(server, 'POST', SYNC, { token: host.key, json: {} }),
        'VALIDATION_FAILED',
        SYNC,
      );
      expect(missing.errors.map((e: any) => e.pointer)).toEqual(['/products']);
      const list = expectProblem(
        await call(server, 'POST', SYNC, { token: host.key, json: [small('a')] }),
        'VALIDATION_FAILED',
        SYNC,
      );
      expect(list.errors.map((e: any) => e.pointer)).toEqual(['']);
    });
  });

  describe('429 RATE_LIMITED', () => {
    it('refuses a second applied sync inside the window, before reading the body', async () => {
      const host = await onboard(server, 'Rate Limited Hosting');
      expect((await sync(server, host.key, [small('one')])).status).toBe(200);

      const answer = await sync(server, host.key, [small('two')]);
      expectProblem(answer, 'RATE_LIMITED', SYNC);
      const retryAfter = answer.headers.get('retry-after') ?? '';
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(300);
      expectRateLimitHeaders(answer, 0);
      const t = Number(/t=(\d+)/.exec(answer.headers.get('ratelimit') ?? '')?.[1]);
      expect(t).toBeGreaterThanOrEqual(1);

      // Still the first catalogue.
      expect((await listingOf(server, host.key)).map((p) => p.external_id)).toEqual(['one']);
    });
  });

  describe('problem types', () => {
    it('answers GET on each type with a page about it', async () => {
      for (const slug of [
        'unauthorized',
        'key-revoked',
        'payload-too-large',
        'unsupported-media-type',
        'validation-failed',
        'rate-limited',
      ]) {
        const page = await call(server, 'GET', `/api/v1/problems/${slug}`);
        expect(page.status).toBe(200);
        expect(page.headers.get('content-type')).toMatch(/^text\/html/);
        expect(page.text.length).toBeGreaterThan(100);
      }
    });
  });

  describe('X-Request-Id', () => {
    it('is on every response', async () => {
      const host = await onboard(server, 'Request Id Hosting');
      const answers = [
        await call(server, 'GET', '/healthz'),
        await call(server, 'GET', '/readyz'),
        await call(server, 'GET', '/api/v1/categories'),
        await call(server, 'GET', '/api/v1/products', { token: host.key }),
        await call(server, 'GET', '/no/such/path'),
        await call(server, 'DELETE', SYNC),
        await call(server, 'POST', SYNC, { json: { products: [] } }),
        await sync(server, host.key, [small('one')]),
        await sync(server, host.key, [small('one')]),
        await admin(server, 'GET', '/hosts'),
      ];
      const ids = answers.map((answer) => answer.headers.get('x-request-id'));
      for (const id of ids) expect(id).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('is on the answers Fastify gives before any route runs, which are problems too', async () => {
      const badUrl = await call(server, 'GET', '/api/v1/%zz', { headers: { 'x-request-id': 'bad-url-1' } });
      expectProblem(badUrl, 'BAD_REQUEST', '/api/v1/%zz');
      expect(badUrl.headers.get('x-request-id')).toBe('bad-url-1');
      const badSync = await call(server, 'POST', `${SYNC}%`, { json: { products: [] } });
      expectProblem(badSync, 'BAD_REQUEST', `${SYNC}%`);
      const longParam = `/admin/v1/hosts/${'a'.repeat(150)}`;
      expectProblem(await admin(server, 'GET', `/hosts/${'a'.repeat(150)}`), 'NOT_FOUND', longParam);
    });

    it('echoes a sane caller-supplied id and replaces an insane one', async () => {
      const sane = 'billing-run.2026-11-21:42_A';
      const echoed = await call(server, 'GET', '/no/such/path', { headers: { 'x-request-id': sane } });
      expect(echoed.headers.get('x-request-id')).toBe(sane);
      expect(echoed.body.request_id).toBe(sane);

      for (const insane of ['x'.repeat(300), 'has spaces in it', 'semi;colon', '']) {
        const answer = await call(server, 'GET', '/no/such/path', { headers: { 'x-request-id': insane } });
        const id = answer.headers.get('x-request-id');
        expect(id).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
        expect(answer.body.request_id).toBe(id);
      }
    });
  });

  describe('the order of the steps', () => {
    it('authenticates before reading the body: a bad key with a bad body gets 401', async () => {
      const answers = [
        await rawSync(server, { key: UNKNOWN_KEY, contentType: 'application/json', body: '{not json' }),
        await rawSync(server, { key: UNKNOWN_KEY, contentType: 'text/plain', body: 'hello' }),
        await rawSync(server, { key: UNKNOWN_KEY, contentType: 'application/json', body: oversizedCatalogue() }),
        await rawSync(server, { contentType: 'application/json', body: JSON.stringify({ products: [] }) }),
      ];
      for (const answer of answers) {
        expectProblem(answer, 'UNAUTHORIZED', SYNC);
        expect(answer.headers.get('www-authenticate')).toBe(CHALLENGE);
      }
    });

    it('checks the key’s status before the body: a revoked key with a bad body gets 403', async () => {
      const host = await onboard(server, 'Revoked Before Body');
      await admin(server, 'POST', `/keys/${host.keyId}/revoke`);
      expectProblem(
        await rawSync(server, { key: host.key, contentType: 'text/plain', body: 'x' }),
        'KEY_REVOKED',
        SYNC,
      );
    });

    it('checks the rate limit before the media type, size and body', async () => {
      const host = await onboard(server, 'Limited Before Body');
      expect((await sync(server, host.key, [small('one')])).status).toBe(200);
      const answers = [
        await rawSync(server, { key: host.key, contentType: 'text/plain', body: 'hello' }),
        await rawSync(server, { key: host.key, body: Buffer.from('{}') }),
        await rawSync(server, { key: host.key, contentType: 'application/json', body: oversizedCatalogue() }),
        await rawSync(server, { key: host.key, contentType: 'application/json', body: '{not json' }),
        await sync(server, host.key, []),
      ];
      for (const answer of answers) {
        expectProblem(answer, 'RATE_LIMITED', SYNC);
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    });

    it('checks the media type before the size, and the size before the JSON', async () => {
      const host = await onboard(server, 'Media Before Size');
      const big = oversizedCatalogue();
      expectProblem(
        await rawSync(server, { key: host.key, contentType: 'text/plain', body: big }),
        'UNSUPPORTED_MEDIA_TYPE',
        SYNC,
      );
      const brokenAndBig = big.slice(0, -10);
      expectProblem(
        await rawSync(server, { key: host.key, contentType: 'application/json', body: brokenAndBig }),
        'PAYLOAD_TOO_LARGE',
        SYNC,
      );
      const invalidAndBig = JSON.stringify({
        products: Array.from({ length: 20 }, (_, i) => product(`p-${i}`, { price: -1 })),
      });
      expect(Buffer.byteLength(invalidAndBig)).toBeGreaterThan(MAX_BODY_BYTES);
      expectProblem(
        await rawSync(server, { key: host.key, contentType: 'application/json', body: invalidAndBig }),
        'PAYLOAD_TOO_LARGE',
        SYNC,
      );
    });
  });

  describe('a refused request', () => {
    it('changes nothing and does not use up the rate limit', async () => {
      const host = await onboard(server, 'Refused Changes Nothing');
      const other = await admin(server, 'POST', `/hosts/${host.slug}/keys`);
      const revokedKey: string = other.body.api_key.key;
      await admin(server, 'POST', `/keys/${other.body.api_key.id}/revoke`);
      const empty = await snapshotOf(server, host.slug);
      expect(empty).toEqual({ products: [], runs: [] });

      // A payload with valid products beside an invalid one: none of them may land.
      const halfValid = { products: [small('good-1'), small('bad', { price: -5 }), small('good-2')] };
      const refusals = [
        await call(server, 'POST', SYNC, { token: UNKNOWN_KEY, json: halfValid }),
        await call(server, 'POST', SYNC, { token: revokedKey, json: { products: [small('good-1')] } }),
        await rawSync(server, { key: host.key, contentType: 'application/json', body: oversizedCatalogue() }),
        await rawSync(server, {
          key: host.key,
          contentType: 'text/plain',
          body: JSON.stringify({ products: [small('good-1')] }),
        }),
        await rawSync(server, { key: host.key, contentType: 'application/json', body: '{"products": [{' }),
        await call(server, 'POST', SYNC, { token: host.key, json: halfValid }),
      ];
      expect(refusals.map((answer) => answer.status)).toEqual([401, 403, 413, 415, 422, 422]);
      expect(await snapshotOf(server, host.slug)).toEqual(empty);
      expect(await listingOf(server, host.key)).toEqual([]);

      // None of them took the only slot of the window.
      const applied = await sync(server, host.key, [small('kept-1'), small('kept-2')]);
      expect(applied.status, applied.text).toBe(200);
      const after = await snapshotOf(server, host.slug);
      expect(after.runs).toHaveLength(1);

      // With a catalogue in place, refusals (429 and 403) leave it exactly as it was.
      const laterRefusals = [
        await sync(server, host.key, [small('kept-1', { price: 99 })]),
        await sync(server, revokedKey, [small('other')]),
        await call(server, 'POST', SYNC, {
          json: { products: [small('kept-1')] },
          headers: { authorization: 'Basic eDp5' },
        }),
      ];
      expect(laterRefusals.map((answer) => answer.status)).toEqual([429, 403, 401]);
      expect(await snapshotOf(server, host.slug)).toEqual(after);
    });
  });
});

/** A TCP proxy in front of PostgreSQL that a test can cut (the database becomes unreachable) and restore. */
async function databaseProxy(
  target: URL,
): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let listener: Server | null = null;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      listener = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      listener.once('error', reject);
      listener.listen(port, '127.0.0.1', () => resolve());
    });
  const cut = async () => {
    const closing = listener;
    listener = null;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise((resolve) => closing.close(resolve));
  };
  await listen();
  return { port, cut, restore: listen, close: cut };
}

describeOnPostgres('503 SERVICE_UNAVAILABLE (postgres store)', () => {
  let server: TestServer;
  let proxy: Awaited<ReturnType<typeof databaseProxy>>;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    const direct = new URL(database.url);
    proxy = await databaseProxy(new URL(ADMIN_DATABASE_URL));
    direct.hostname = '127.0.0.1';
    direct.port = String(proxy.port);
    server = await startServer('postgres', { databaseUrl: direct.toString() });
  });

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 with Retry-After while the database is unreachable, and recovers with nothing lost', async () => {
    const host = await onboard(server, 'Unreachable Hosting');
    const first = await sync(server, host.key, [small('before-1'), small('before-2')]);
    expect(first.status, first.text).toBe(200);
    const listing = await listingOf(server, host.key, 'all');
    const waiting = await onboard(server, 'Waiting Hosting');

    await proxy.cut();
    try {
      const ready = await call(server, 'GET', '/readyz');
      expectProblem(ready, 'SERVICE_UNAVAILABLE', '/readyz');
      expect(Number(ready.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // The process itself is alive.
      expect((await call(server, 'GET', '/healthz')).status).toBe(200);

      const refused = await sync(server, host.key, [small('during')]);
      const problem = expectProblem(refused, 'SERVICE_UNAVAILABLE', SYNC);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(JSON.stringify(problem)).not.toMatch(/ECONNREFUSED|at .*\.js|SELECT|127\.0\.0\.1/);
      expectProblem(
        await call(server, 'GET', '/api/v1/products', { token: host.key }),
        'SERVICE_UNAVAILABLE',
        '/api/v1/products',
      );
      expectProblem(await sync(server, waiting.key, [small('during')]), 'SERVICE_UNAVAILABLE', SYNC);
    } finally {
      await proxy.restore();
    }

    expect((await call(server, 'GET', '/readyz')).status).toBe(200);
    expect(await listingOf(server, host.key, 'all')).toEqual(listing);
    // A 503 does not take the window's slot.
    const recovered = await sync(server, waiting.key, [small('after')]);
    expect(recovered.status, recovered.text).toBe(200);
    expect((await listingOf(server, waiting.key)).map((p) => p.external_id)).toEqual(['after']);
  });
});
