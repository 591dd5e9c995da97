// A connection that PostgreSQL's link loses while the pool checks it, before it is handed out (the adapter asks each
// new connection for its backend's pid, src/store/postgres.ts): the statement waiting for it fails as unavailable,
// the process goes on, and the next statement gets a connection of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../src/store/db.js';
import { PostgresDatabase } from '../../src/store/postgres.js';
import { createTestDatabase } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

describe("a new connection's check cut (PostgreSQL)", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let proxy: TcpProxy;
  let db: PostgresDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    const target = new URL(database.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    db = new PostgresDatabase({ url: viaProxy.toString(), poolSize: 2, statementTimeoutMs: 3_000 });
  });

  afterAll(async () => {
    await db?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('fails the statement that waited for it as unavailable, and serves the next on a new connection', async () => {
    // Twice: the pool's first connection, and one made while another is in use.
    for (const held of [false, true]) {
      const cut = proxy.cutAt('pg_backend_pid', 'before');
      const session = held ? db.session(() => new Promise((resolve) => setTimeout(resolve, 300))) : null;
      await expect(db.query('SELECT 1 AS one')).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await cut;
      await session;
      // The cut connection's error event comes on its own: with no listener it is an uncaught exception, which ends
      // a server's process and fails this run (Vitest fails a run on any).
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    }
  });
});
