// Authentication abuse: failed attempts are throttled per client address, unknown and malformed keys cannot be
// told apart, and provider keys and the admin token each open only their own door.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { startInProcessServer, type ServerUnderTest } from '../support/server.js';

/** AUTH_FAILURE_LIMIT, as documented */
const LIMIT = 20;
/** instead of AUTH_FAILURE_WINDOW_SECONDS (a minute), so that the test sees a window end */
const WINDOW_SECONDS = 3;

const wellFormedUnknownKey = () => `rk_${randomBytes(32).toString('hex')}`;

describe('authentication abuse', () => {
  let server: ServerUnderTest;
  let host: Onboarded;

  beforeAll(async () => {
    server = await startInProcessServer('postgres', { config: { authFailureWindowSeconds: WINDOW_SECONDS } });
    host = await onboard(server, 'Auth Target');
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('answers unknown and malformed keys alike: same status, body and challenge', async () => {
    const variants = [
      wellFormedUnknownKey(),
      `rk_${'g'.repeat(64)}`,
      'rk_short',
      host.key.toUpperCase(),
      `${host.key}0`,
      host.key.slice(0, -1),
      'x'.repeat(5000),
    ];
    const answers = [];
    for (const key of variants) answers.push(await call(server, 'GET', '/api/v1/products', { token: key }));
    for (const answer of answers) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="hostdir"');
      const { request_id: _id, ...rest } = answer.body;
      const { request_id: _first, ...first } = answers[0]!.body;
      expect(rest).toEqual(first);
    }
  });

  it('does not let a provider key reach the admin API, nor the admin token sync', async () => {
    const adminPaths: [string, string][] = [
      ['GET', '/admin/v1/hosts'],
      ['POST', '/admin/v1/hosts'],
      ['GET', `/admin/v1/hosts/${host.slug}`],
      ['POST', `/admin/v1/hosts/${host.slug}/keys`],
      ['GET', `/admin/v1/hosts/${host.slug}/keys`],
      ['POST', `/admin/v1/keys/${host.keyId}/revoke`],
      ['GET', `/admin/v1/hosts/${host.slug}/products`],
      ['POST', '/admin/v1/categories'],
    ];
    for (const [method, path] of adminPaths) {
      const answer = await call(server, method, path, {
        token: host.key,
        ...(method === 'POST' ? { json: { name: 'x', slug: 'x', label: 'x' } } : {}),
      });
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(answer.body.code).toBe('UNAUTHORIZED');
    }
    expect((await sync(server, server.adminToken, [product('a')])).status).toBe(401);
    expect((await call(server, 'GET', '/api/v1/products', { token: server.adminToken })).status).toBe(401);
    // Nothing above changed anything: the key still works and the host has no products.
    const listing = await call(server, 'GET', '/api/v1/products?status=all', { token: host.key });
    expect(listing.status).toBe(200);
    expect(listing.body.products).toEqual([]);
    const keys = await admin(server, 'GET', `/hosts/${host.slug}/keys`);
    expect(keys.body.keys.map((k: { status: string }) => k.status)).toEqual(['active']);
  });

  it(`throttles a client address after ${LIMIT} failures per window with 429 and Retry-After, then lets it back`, async () => {
    // Let failures of the tests above age out of their window first.
    await new Promise((resolve) => setTimeout(resolve, WINDOW_SECONDS * 1000 + 100));
    const failing = [
      () => call(server, 'GET', '/api/v1/products', { token: wellFormedUnknownKey() }),
      () => call(server, 'GET', '/api/v1/products'),
      () => sync(server, 'rk_nope', [product('a')]),
      () => admin({ ...server, adminToken: `${server.adminToken}x` }, 'GET', '/hosts'),
    ];
    for (let k = 0; k < LIMIT; k++) {
      const answer = await failing[k % failing.length]!();
      expect(answer.status, `failure ${k + 1}`).toBe(401);
    }
    const blocked = await call(server, 'GET', '/api/v1/products', { token: wellFormedUnknownKey() });
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('RATE_LIMITED');
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    // While blocked, even the right credentials are not looked at: guessing gains nothing.
    expect((await call(server, 'GET', '/api/v1/products', { token: host.key })).status).toBe(429);
    expect((await admin(server, 'GET', '/hosts')).status).toBe(429);
    // Public endpoints stay open.
    expect((await call(server, 'GET', '/api/v1/categories')).status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
    expect((await call(server, 'GET', '/api/v1/products', { token: host.key })).status).toBe(200);
    expect((await admin(server, 'GET', '/hosts')).status).toBe(200);
  });

  it('keeps no plaintext of a failed key in its log', () => {
    expect(server.output()).not.toMatch(/rk_[0-9a-f]{64}/);
    expect(server.output()).not.toContain(server.adminToken);
  });
});
