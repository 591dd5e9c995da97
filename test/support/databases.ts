// A fresh, migrated database of either store, opened in this process: for tests of the store and the sync service
// that need no server.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Database } from '../../src/store/db.js';
import { EmbeddedDatabase } from '../../src/store/embedded.js';
import { migrate } from '../../src/store/migrate.js';
import { PostgresDatabase } from '../../src/store/postgres.js';
import { copyEmbeddedTemplate, createTestDatabase, type StoreKind } from './server.js';

export async function openTestDatabase(store: StoreKind): Promise<{ db: Database; close(): Promise<void> }> {
  if (store === 'postgres') {
    const database = await createTestDatabase();
    const db = new PostgresDatabase({ url: database.url, poolSize: 4, statementTimeoutMs: 30_000 });
    await migrate(db);
    return {
      db,
      async close() {
        await db.close();
        await database.drop();
      },
    };
  }
  const embedded = await openEmbeddedTestDatabase();
  await migrate(embedded.db);
  return embedded;
}

/**
 * A fresh embedded store, opened in this process: a copy of the run's migrated one (embedded-template.ts), which
 * spares the seconds an empty store's initdb takes.
 */
export async function openEmbeddedTestDatabase(): Promise<{ db: EmbeddedDatabase; close(): Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'hostdir-test-'));
  const db = await EmbeddedDatabase.open(await copyEmbeddedTemplate(dataDir));
  return {
    db,
    async close() {
      await db.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
