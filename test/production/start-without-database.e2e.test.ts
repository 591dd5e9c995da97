// PostgreSQL out of reach when the server starts: the process starts anyway, says it is alive but not ready,
// answers 503 with Retry-After wherever the database is needed, and serves fully once the database answers,
// its migrations run, without a restart.
import { afterAll, describe, expect, it } from 'vitest';
import { admin, call, onboard, product, sync } from '../support/api.js';
import { createTestDatabase, startServer, type TestServer } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/until.js';

describe('a server started while PostgreSQL is out of reach', () => {
  let server: TestServer | undefined;
  let proxy: TcpProxy | undefined;
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await database?.drop();
  });

  it('starts unready, answers 503 with Retry-After, and serves once the database answers', async () => {
    database = await createTestDatabase();
    const target = new URL(database.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    proxy.cut();
    const through = new URL(database.url);
    through.port = String(proxy.port);
    server = await startServer('postgres', { databaseUrl: through.toString(), env: { LOG_LEVEL: 'info' } });

    expect((await call(server, 'GET', '/healthz')).status).toBe(200);
    const ready = await call(server, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('5');
    const key = `rk_${'a'.repeat(64)}`;
    for (const answer of [
      await sync(server, key, [product('x')]),
      await admin(server, 'POST', '/hosts', { name: 'Too Early' }),
      await call(server, 'GET', '/api/v1/directory/products'),
    ]) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(answer.body.code).toBe('SERVICE_UNAVAILABLE');
    }
    expect((await call(server, 'GET', '/api/v1/openapi.json')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(server.process().exitCode).toBeNull();

    proxy.heal();
    await until(async () => (await call(server!, 'GET', '/readyz')).status === 200, 30_000, 'readiness');
    const host = await onboard(server, 'Finally Reached');
    expect((await sync(server, host.key, [product('x')])).status).toBe(200);
    expect(server.output()).toContain('the database is reachable; migrations are done, serving');
  });
});
