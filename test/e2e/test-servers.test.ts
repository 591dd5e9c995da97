// The end-to-end tests' own server starter: a server started on a port another test's server already holds moves to
// a port of its own, instead of the tests talking to the other server (whose admin token refuses theirs).
import { afterAll, describe, expect, it } from 'vitest';
import { call, onboard } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';

describe('test servers', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('start on a port of their own when the one they were given is taken by another server', async () => {
    const first = await startServer('embedded');
    servers.push(first);
    const second = await startServer('embedded', { port: first.port });
    servers.push(second);

    expect(second.port).not.toBe(first.port);
    expect(second.output()).not.toMatch(/EADDRINUSE/);
    const onboarded = await onboard(second, 'Second Server');
    expect((await call(second, 'GET', `/api/v1/directory/hosts/${onboarded.slug}`)).status).toBe(200);
    // The first server holds only what was made on it.
    expect((await call(first, 'GET', `/api/v1/directory/hosts/${onboarded.slug}`)).status).toBe(404);
  });
});
