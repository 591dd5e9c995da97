// GET /metrics: Prometheus text with requests by route pattern, syncs by outcome, products by action, the pool.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics (PostgreSQL)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer('postgres', { env: { DB_POOL_SIZE: '3', LOG_LEVEL: 'warn' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('counts requests, syncs and products the way they were answered, without authentication', async () => {
    const host = await onboard(server, 'Metered Hosting');
    expect((await sync(server, host.key, [product('m-1'), product('m-2'), product('m-3')])).status).toBe(200);
    expect((await sync(server, host.key, [product('m-1')], '?dry_run=true')).status).toBe(200);
    expect((await sync(server, host.key, [product('m-1')])).status).toBe(429);
    expect((await sync(server, host.key, [product('m-1', { price: -1 })], '?dry_run=true')).status).toBe(422);
    expect((await sync(server, `rk_${'0'.repeat(64)}`, [product('m-1')])).status).toBe(401);
    expect((await admin(server, 'GET', `/hosts/${host.slug}`)).status).toBe(200);
    expect((await admin(server, 'GET', '/hosts/no-such-host')).status).toBe(404);
    expect((await call(server, 'GET', '/no/such/path?x=1')).status).toBe(404);

    const answer = await call(server, 'GET', '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = answer.text;

    for (const [outcome, count] of Object.entries({
      applied: 1,
      dry_run: 1,
      rate_limited: 1,
      validation_failed: 1,
      unauthorized: 1,
    })) {
      expect(value(text, `hostdir_syncs_total{outcome="${outcome}"}`), outcome).toBe(count);
    }
    // The dry run planned one unchanged and two deactivated products, but only applied syncs count.
    expect(value(text, 'hostdir_synced_products_total{action="created"}')).toBe(3);
    expect(value(text, 'hostdir_synced_products_total{action="deactivated"}')).toBeUndefined();

    // Route patterns, never raw URLs.
    expect(value(text, 'hostdir_http_requests_total{method="POST",route="/api/v1/sync/products",status="200"}')).toBe(
      2,
    );
    expect(value(text, 'hostdir_http_requests_total{method="GET",route="/admin/v1/hosts/:slug",status="200"}')).toBe(1);
    expect(value(text, 'hostdir_http_requests_total{method="GET",route="/admin/v1/hosts/:slug",status="404"}')).toBe(1);
    expect(value(text, 'hostdir_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(1);
    expect(text).not.toContain('metered-hosting');
    expect(text).not.toContain('no/such/path');
    expect(
      value(
        text,
        'hostdir_http_request_duration_seconds_count{method="POST",route="/api/v1/sync/products",status="429"}',
      ),
    ).toBe(1);

    expect(value(text, 'hostdir_db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
    expect(value(text, 'hostdir_db_pool_connections{state="total"}')).toBeLessThanOrEqual(3);
    expect(value(text, 'hostdir_db_pool_connections{state="waiting"}')).toBe(0);
    expect(value(text, 'hostdir_sync_slots{state="running"}')).toBe(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
  });
});
