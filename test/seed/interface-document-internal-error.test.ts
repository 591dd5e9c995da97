// Conformance of the original interface document: "500 | INTERNAL_ERROR | Internal server error". A client cannot
// provoke an internal error through the interface, so this suite injects one: a trigger on the products table,
// in the test's own PostgreSQL database, fails every write of one host's products. The embedded store (PGlite)
// cannot be reached from outside the server process, so this runs on the PostgreSQL store only; the other suites
// check that both stores document 500 INTERNAL_ERROR for the endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onboard, sync } from '../support/api.js';
import { startServer, type TestServer } from '../support/server.js';
import { everyField, expectError, listing } from './helpers.js';

describe('the interface document: 500 INTERNAL_ERROR (postgres store, with a fault injected into its database)', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer('postgres');
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('"500 | INTERNAL_ERROR | Internal server error"', async () => {
    const host = await onboard(server, 'Seed Internal Error');
    const bystander = await onboard(server, 'Seed Internal Error Bystander');
    const [row] = await server.sql<{ id: string }>('SELECT id::text AS id FROM hosts WHERE slug = $1', [host.slug]);
    expect(row).toBeDefined();
    await server.sql(`CREATE FUNCTION seed_injected_fault() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected fault'; END $$`);
    await server.sql(`CREATE TRIGGER seed_injected_fault BEFORE INSERT OR UPDATE ON products FOR EACH ROW
      WHEN (NEW.host_id = ${Number(row!.id)}) EXECUTE FUNCTION seed_injected_fault()`);
    try {
      const answer = await sync(server, host.key, [everyField('boom-1'), everyField('boom-2')]);
      const body = expectError(answer, 500, 'INTERNAL_ERROR');
      expect(JSON.stringify(body)).not.toContain('injected fault');
      expect(await listing(server, host.key)).toEqual([]);
      // The server keeps serving: another host's sync is applied meanwhile.
      const fine = await sync(server, bystander.key, [everyField('fine')]);
      expect(fine.status, fine.text).toBe(200);
    } finally {
      await server.sql('DROP TRIGGER IF EXISTS seed_injected_fault ON products');
      await server.sql('DROP FUNCTION IF EXISTS seed_injected_fault()');
    }
  });
});
