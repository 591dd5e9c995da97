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
import { listProducts } from '../../src/store/products.js';
import type { SyncOutcome } from '../../src/sync/service.js';
import { closeValidationPool, VALIDATION_THREAD_MIN_BYTES, checkedOnThreads } from '../../src/sync/validation-pool.js';
import { windowFor } from '../../src/sync/window.js';
import { catalogue } from '../../bench/products.mjs';
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
    const answer = answerTo(
      {
        kind: 'applied',
        answer: applied,
        dryRun: false,
        summary: JSON.parse(applied.body).summary,
        window,
        usage: { used: 1, freesInSeconds: 300 },
      },
      0,
    );
    expect(answer).toEqual({
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'ratelimit-policy': '"sync";q=1;w=300',
        ratelimit: '"sync";r=0;t=300',
      },
      body: applied.body,
    });
  });

  it('replays a kept answer with Idempotent-Replayed, and sends a refusal as kept', () => {
    expect(answerTo({ kind: 'replayed', answer: applied }, 0)).toEqual({
      ...applied,
      headers: { ...applied.headers, 'idempotent-replayed': 'true' },
    });
    const refused = syncAnswers.refused(
      {
        errors: [{ pointer: '/products', code: 'min_items', detail: 'must hold at least 1 product' }],
        truncated: false,
        notJson: false,
      },
      { id: 'req_1', instance: SYNC },
    );
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
    expect(problemOf({ kind: 'busy' })).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      headers: { 'retry-after': '3' },
    });
    expect(problemOf({ kind: 'overloaded' })).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'retry-after': '5' },
    });
    expect(problemOf({ kind: 'unavailable' })).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'retry-after': '5' },
    });
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
    const config = { ...loadConfig({}), refusedMaxPerWindow: 3 };
    app = await buildApp({ config, db, adminToken, instanceId, lifecycle: { closing: false, prepared: true } });
  });

  afterAll(async () => {
    await app?.close();
    await close?.();
    await closeValidationPool();
  });

  async function onboard(name: string): Promise<string> {
    const created = await app.inject({
      method: 'POST',
      url: '/admin/v1/hosts',
      headers: { authorization: `Bearer ${adminToken}` },
      payload: { name },
    });
    expect(created.statusCode).toBe(201);
    return created.json().api_key.key;
  }

  const product = (id: string) => ({ external_id: id, name: `Plan ${id}`, category: 'vps_cloud' });
  const sync = (key: string, payload: unknown, headers: Record<string, string> = {}, query = '') =>
    app.inject({
      method: 'POST',
      url: `${SYNC}${query}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(payload),
    });

  it('applies a sync, then turns the next away before its body with the window in its headers', async () => {
    const key = await onboard('Inject Applied');
    const first = await sync(key, { products: [product('a')] });
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      ratelimit: '"sync";r=0;t=300',
    });
    expect(first.json().summary).toMatchObject({ created: 1 });
    const second = await sync(key, { products: [] });
    expect(second.statusCode).toBe(429);
    expect(second.headers).toMatchObject({
      'retry-after': expect.stringMatching(/^\d+$/),
      'ratelimit-policy': '"sync";q=1;w=300',
    });
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
    expect(refused.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ pointer: '/products/0/category', code: 'enum' }],
    });
    expect((await sync(key, { products: [product('a')] }, {}, '?dryrun=true')).json()).toMatchObject({
      errors: [{ parameter: 'dryrun', code: 'unknown_field' }],
    });
    expect((await sync(key, { products: [product('a')] }, { 'content-type': 'text/plain' })).statusCode).toBe(415);
    // Three refusals (two 422s and a 415), each recorded once its answer is out: the budget is used up.
    for (
      let k = 0;
      k < 100 && (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sync_refusals')).rows[0]!.n < 3;
      k++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const past = await sync(key, { products: [product('a')] });
    expect(past.statusCode).toBe(429);
    expect(past.headers).toMatchObject({
      'ratelimit-policy': '"refused";q=3;w=300',
      ratelimit: expect.stringMatching(/^"refused";r=0;t=\d+$/),
    });
  });

  it('validates a large body on a thread: refused and applied as the same catalogue in a small body', async () => {
    const products = catalogue(300);
    const broken = products.map((p, k) => (k % 100 === 1 ? { ...p, category: 'nope' } : p));
    const small = (payload: unknown) => JSON.stringify(payload);
    const large = (payload: unknown) => JSON.stringify(payload).padEnd(VALIDATION_THREAD_MIN_BYTES, ' ');
    expect(small({ products }).length).toBeLessThan(VALIDATION_THREAD_MIN_BYTES);
    const onLoop = await onboard('Inject Small Body');
    const onThread = await onboard('Inject Large Body');
    const send = (key: string, payload: string) =>
      app.inject({
        method: 'POST',
        url: SYNC,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload,
      });
    const before = checkedOnThreads();

    const refused = [
      await send(onLoop, small({ products: broken })),
      await send(onThread, large({ products: broken })),
    ];
    expect(checkedOnThreads()).toBe(before + 1);
    const problem = (answer: { statusCode: number; json(): Record<string, unknown> }) => {
      const { request_id: _, ...rest } = answer.json();
      return { status: answer.statusCode, ...rest };
    };
    expect(problem(refused[0]!)).toMatchObject({
      status: 422,
      code: 'VALIDATION_FAILED',
      errors: expect.arrayContaining([{ pointer: '/products/1/category', code: 'enum', detail: expect.any(String) }]),
    });
    expect(problem(refused[1]!)).toEqual(problem(refused[0]!));

    const applied = [await send(onLoop, small({ products })), await send(onThread, large({ products }))];
    expect(checkedOnThreads()).toBe(before + 2);
    const summary = (answer: {
      statusCode: number;
      json(): { summary: unknown; products: { external_id: string; action: string }[] };
    }) => ({
      status: answer.statusCode,
      summary: answer.json().summary,
      products: answer.json().products.map(({ external_id, action }) => ({ external_id, action })),
    });
    expect(summary(applied[0]!)).toMatchObject({ status: 200, summary: { created: 300 } });
    expect(summary(applied[1]!)).toEqual(summary(applied[0]!));
    // What the directory holds: the same products, to the last field.
    const held = async (slug: string) => {
      const [host] = (await db.query<{ id: number }>('SELECT id FROM hosts WHERE slug = $1', [slug])).rows;
      const { products: stored } = await listProducts(db, host!.id, { status: 'all', limit: 2_000, afterId: null });
      return stored
        .map(({ id: _, created_at: _c, updated_at: _u, ...content }) => content)
        .sort((a, b) => a.external_id.localeCompare(b.external_id));
    };
    const [heldOnLoop, heldOnThread] = [await held(applied[0]!.json().host), await held(applied[1]!.json().host)];
    expect(heldOnLoop).toHaveLength(300);
    expect(heldOnThread).toEqual(heldOnLoop);
  });

  it('answers 401 without a key and 403 for a revoked one', async () => {
    const key = await onboard('Inject Revoked');
    const missing = await app.inject({
      method: 'POST',
      url: SYNC,
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="hostdir"');
    const keys = await app.inject({
      method: 'GET',
      url: '/admin/v1/hosts/inject-revoked/keys',
      headers: { authorization: `Bearer ${adminToken}` },
    });
    const keyId = keys.json().keys[0].id;
    await app.inject({
      method: 'POST',
      url: `/admin/v1/keys/${keyId}/revoke`,
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect((await sync(key, { products: [product('a')] })).json()).toMatchObject({ status: 403, code: 'KEY_REVOKED' });
  });
});
