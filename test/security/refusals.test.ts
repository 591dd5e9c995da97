// Refused requests have a budget per host (60 per window, or SYNC_MAX_PER_WINDOW if more), kept in the database so
// that every server process counts the same ones; stored Idempotency-Key answers are bounded per host in count and
// bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onboard, product, sync, type Onboarded } from '../support/api.js';
import { rawExchange, syncHead } from '../support/raw-http.js';
import { startInProcessServer, startServer, type ServerUnderTest, type TestServer } from '../support/server.js';

/** The budget of refused requests per window with the default SYNC_MAX_PER_WINDOW of 1. */
const BUDGET = 60;

describe('the budget of refused requests', () => {
  let first: TestServer;
  let second: TestServer;
  let noisy: Onboarded;
  let quiet: Onboarded;

  beforeAll(async () => {
    first = await startServer('postgres');
    second = await startServer('postgres', { databaseUrl: first.databaseUrl! });
    noisy = await onboard(first, 'Refused Often');
    quiet = await onboard(first, 'Refused Never');
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('answers 429 before the body once a host has used it up, on every process, and leaves other hosts alone', async () => {
    // Refusals of three kinds, on both processes: each counts.
    expect((await sync(first, noisy.key, [{ name: 'no id' }])).status).toBe(422);
    expect(
      (
        await call(second, 'POST', '/api/v1/sync/products', {
          token: noisy.key,
          body: 'a,b',
          headers: { 'content-type': 'text/csv' },
        })
      ).status,
    ).toBe(415);
    expect((await sync(second, noisy.key, [product('x')], '?dry_run=maybe')).status).toBe(422);
    // The rest of the budget, sent to one process and the other.
    for (let n = 3; n < BUDGET; n++) {
      const refused = await sync(n % 2 ? first : second, noisy.key, [{ name: `no id ${n}` }]);
      expect(refused.status).toBe(422);
    }

    // Past the budget: 429 with the refused policy, before a byte of the body (none is sent here).
    for (const server of [first, second]) {
      const { responses } = await rawExchange(server.port, [syncHead(noisy.key, 10_000_000)], { deadlineMs: 2_000 });
      const limited = responses[0]!;
      expect(limited.status).toBe(429);
      expect(JSON.parse(limited.body)).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(limited.headers['ratelimit-policy']).toBe(`"refused";q=${BUDGET};w=300`);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // A valid catalogue of the same host waits too; nothing is applied.
    expect((await sync(first, noisy.key, [product('valid')])).status).toBe(429);
    expect((await call(first, 'GET', '/api/v1/products?status=all', { token: noisy.key })).body.products).toEqual([]);
    // Another host is not touched.
    expect((await sync(second, quiet.key, [product('valid')])).status).toBe(200);
    // The table holds no more than the budget of rows for the host.
    const rows = await first.sql<{ n: number }>(
      'SELECT count(*)::int AS n FROM sync_refusals r JOIN hosts h ON h.id = r.host_id WHERE h.slug = $1',
      [noisy.slug],
    );
    expect(rows[0]!.n).toBe(BUDGET);
  });
});

describe('stored Idempotency-Key answers', () => {
  let server: ServerUnderTest;
  let host: Onboarded;

  beforeAll(async () => {
    // Two keys kept instead of the 1 000 fixed in code (sync/idempotency.ts): in this process, where the Config is the
    // test's own.
    server = await startInProcessServer('postgres', { config: { idempotencyMaxKeysPerHost: 2 } });
    host = await onboard(server, 'Keyed Often');
  });
  afterAll(async () => {
    await server?.stop();
  });

  const keyed = (key: string) =>
    call(server, 'POST', '/api/v1/sync/products?dry_run=true', {
      token: host.key,
      json: { products: [product('k')] },
      headers: { 'idempotency-key': key },
    });

  it('are bounded per host: the oldest is forgotten, and its key is then a new request', async () => {
    const answers = [];
    for (const key of ['k1', 'k2', 'k3']) {
      const answer = await keyed(key);
      expect(answer.status).toBe(200);
      answers.push(answer.body.sync_id);
    }
    const kept = await server.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM idempotency_keys i JOIN hosts h ON h.id = i.host_id WHERE h.slug = $1`,
      [host.slug],
    );
    expect(kept[0]!.n).toBe(2);
    const newest = await keyed('k3');
    expect(newest.headers.get('idempotent-replayed')).toBe('true');
    expect(newest.body.sync_id).toBe(answers[2]);
    const forgotten = await keyed('k1');
    expect(forgotten.status).toBe(200);
    expect(forgotten.headers.get('idempotent-replayed')).toBeNull();
    expect(forgotten.body.sync_id).not.toBe(answers[0]);
  });
});
