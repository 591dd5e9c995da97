// The HTTP mapping of the sync service's outcomes (http/sync-answers.ts), and the endpoint's hooks through app.inject
// on an embedded store in this process. The service's rules are tested in test/sync; the endpoint end to end, over
// a real socket on both stores, in test/e2e.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { Problem } from '../../src/http/problems.js';
import { answerTo, syncAnswers } from '../../src/http/sync-answers.js';
import type { Database } from '../../src/store/db.js';
import { touchInstance } from '../../src/store/instances.js';
import type { SyncOutcome } from '../../src/sync/service.js';
import { windowFor } from '../../src/sync/window.js';
import { openTestDatabase } from '../support/databases.js';

const SYNC = '/api/v1/sync/products';
const window = windowFor(false, loadConfig({}));
const applied = syncAnswers.applied({
  sync_id: 'syn_01JD0000000000000000000000',
  dry_run: false,
  host: 'acme',
  summary: { received: 0, created: 0, updated: 0, unchanged: 0, reactivated: 0, deactivated: 0 },
  products: [],
  deactivated: [],
  applied_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 1,
});

describe('what each outcome of a sync answers', () => {
  const problemOf = (outcome: SyncOutcome) => {
    const answer = answerTo(outcome, 2_500);
    if (!(answer instanceof Problem)) throw new Error(`${outcome.kind} answers ${answer.status}`);
    return { status: answer.status, code: answer.code, headers: answer.extra.headers ?? {}, extra: answer.extra };
  };

  it('sends an applied answer as kept, with the window as it stands after the sync', () => {
    const answer = answerTo({ kind: 'applied', answer: applied, dryRun: false, summary: JSON.parse(applied.body).summary, window, usage: { used: 1, freesInSeconds: 300 } }, 0);
    expect(answer).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'ratelimit-policy': '"sync";q=1;w=300', ratelimit: '"sync";r=0;t=300' },
      body: applied.body,
    });
  });

  it('replays a kept answer with Idempotent-Replayed, and sends a refusal as kept', () => {
    expect(answerTo({ kind: 'replayed', answer: applied }, 0)).toEqual({ ...applied, headers: { ...applied.headers, 'idempotent-replayed': 'true' } });
    const refused = syncAnswers.refused({ errors: [{ pointer: '/products', code: 'min_items', detail: 'must hold at least 1 product' }], truncated: false, notJson: false }, { id: 'req_1', instance: SYNC });
    expect(answerTo({ kind: 'refused', answer: refused }, 0)).toBe(refused);
    expect(refused.status).toBe(422);
    expect(JSON.parse(refused.body)).toEqual({
      type: '/api/v1/problems/validation-failed',
      title: 'Validation failed',
      status: 422,
      code: 'VALIDATION_FAILED',
      detail: '1 problem(s) in the payload; nothing was changed',
      instance: SYNC,
      request_id: 'req_1',
      errors: [{ pointer: '/products', code: 'min_items', detail: 'must hold at least 1 product' }],
    });
  });

  it('answers every other outcome with its problem, status and headers', () => {
    expect(problemOf({ kind: 'rate_limited', window, usage: { used: 1, freesInSeconds: 42 } })).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      headers: { 'retry-after': '42', ratelimit: '"sync";r=0;t=42', 'ratelimit-policy': '"sync";q=1;w=300' },
    });
    expect(problemOf({ kind: 'key_reused' })).toMatchObject({ status: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(problemOf({ kind: 'key_in_use' })).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(problemOf({ kind: 'revoked' })).toMatchObject({ status: 403, code: 'KEY_REVOKED' });
    expect(problemOf({ kind: 'busy' })).toMatchObject({ status: 429, code: 'RATE_LIMITED', headers: { 'retry-after': '3' } });
    expect(problemOf({ kind: 'overloaded' })).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'retry-after': '5' } });
    expect(problemOf({ kind: 'unavailable' })).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'retry-after': '5' } });
    expect(problemOf({ kind: 'outcome_unknown', syncId: 'syn_x' })).toMatchObject({
      status: 503,
      headers: { 'retry-after': '5' },
      extra: { sync_id: 'syn_x', outcome: 'unknown' },
    });
  });
});

describe('the sync endpoint through app.inject (embedded store)', () => {
  let app: FastifyInstance;
  let db: Database;
  let close: () => Promise<void>;
  const adminToken = 'inject-test-admin-token';

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase('embedded'));
    const instanceId = 'ins_inject_test';
    await touchInstance(db, instanceId);
    const config = loadConfig({ REFUSED_MAX_PER_WINDOW: '3' });
    app = await buildApp({ config, db, adminToken, instanceId, lifecycle: { closing: false, prepared: true } });
  });

  afterAll(async () => {
    await app?.close();
    await close?.();
  });

  async function onboard(name: string): Promise<string> {
    const created = await app.inject({ method: 'POST', url: '/admin/v1/hosts', headers: { authorization: `Bearer ${adminToken}` }, payload: { name } });
    expect(created.statusCode).toBe(201);
    return created.json().api_key.key;
  }

  const product = (id: string) => ({ external_id: id, name: `Plan ${id}`, category: 'vps_cloud' });
  const sync = (key: string, payload: unknown, headers: Record<string, string> = {}, query = '') =>
    app.inject({ method: 'POST', url: `${SYNC}${query}`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });

  it('applies a sync, then turns the next away before its body with the window in its headers', async () => {
    const key = await onboard('Inject Applied');
    const first = await sync(key, { products: [product('a')] });
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', ratelimit: '"sync";r=0;t=300' });
    expect(first.json().summary).toMatchObject({ created: 1 });
    const second = await sync(key, { products: [] });
    expect(second.statusCode).toBe(429);
    expect(second.headers).toMatchObject({ 'retry-after': expect.stringMatching(/^\d+$/), 'ratelimit-policy': '"sync";q=1;w=300' });
  });

  it('replays an answer for its Idempotency-Key even with the window full', async () => {
    const key = await onboard('Inject Replayed');
    const body = { products: [product('a')] };
    const first = await sync(key, body, { 'idempotency-key': 'inject-1' });
    const retry = await sync(key, body, { 'idempotency-key': 'inject-1' });
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toBe(first.body);
  });

  it('refuses a bad catalogue, a bad query and a bad media type before the window, and counts refusals', async () => {
    const key = await onboard('Inject Refused');
    const refused = await sync(key, { products: [{ ...product('a'), category: 'nope' }] });
    expect(refused.statusCode).toBe(422);
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(refused.json()).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ pointer: '/products/0/category', code: 'enum' }] });
    expect((await sync(key, { products: [product('a')] }, {}, '?dryrun=true')).json()).toMatchObject({ errors: [{ parameter: 'dryrun', code: 'unknown_field' }] });
    expect((await sync(key, { products: [product('a')] }, { 'content-type': 'text/plain' })).statusCode).toBe(415);
    // Three refusals (two 422s and a 415), each recorded once its answer is out: the budget is used up.
    for (let k = 0; k < 100 && (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sync_refusals')).rows[0]!.n < 3; k++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const past = await sync(key, { products: [product('a')] });
    expect(past.statusCode).toBe(429);
    expect(past.headers).toMatchObject({ 'ratelimit-policy': '"refused";q=3;w=300', ratelimit: expect.stringMatching(/^"refused";r=0;t=\d+$/) });
  });

  it('answers 401 without a key and 403 for a revoked one', async () => {
    const key = await onboard('Inject Revoked');
    const missing = await app.inject({ method: 'POST', url: SYNC, headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="hostdir"');
    const keys = await app.inject({ method: 'GET', url: '/admin/v1/hosts/inject-revoked/keys', headers: { authorization: `Bearer ${adminToken}` } });
    const keyId = keys.json().keys[0].id;
    await app.inject({ method: 'POST', url: `/admin/v1/keys/${keyId}/revoke`, headers: { authorization: `Bearer ${adminToken}` } });
    expect((await sync(key, { products: [product('a')] })).json()).toMatchObject({ status: 403, code: 'KEY_REVOKED' });
  });
});
