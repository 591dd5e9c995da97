// Chooses the adapter: PostgreSQL when DATABASE_URL is set, the embedded store under DATA_DIR otherwise.
import path from 'node:path';
import type { Config } from '../config.js';
import type { Database } from './db.js';
import { EmbeddedDatabase } from './embedded.js';
import { PostgresDatabase } from './postgres.js';

export async function openDatabase(config: Config): Promise<Database> {
  if (config.databaseUrl) {
    return new PostgresDatabase({
      url: config.databaseUrl,
      poolSize: config.dbPoolSize,
      statementTimeoutMs: config.statementTimeoutMs,
    });
  }
  return EmbeddedDatabase.open(path.join(config.dataDir, 'pglite'));
}

/**
 * Runs fn on the database the migrations need: a session-level advisory lock must stay on one server
 * connection, which a transaction-mode pooler (PgBouncer) does not give; MIGRATION_DATABASE_URL bypasses it.
 */
export async function withMigrationDatabase(config: Config, db: Database, fn: (db: Database) => Promise<void>): Promise<void> {
  if (!config.migrationDatabaseUrl) return fn(db);
  const direct = new PostgresDatabase({
    url: config.migrationDatabaseUrl,
    poolSize: 1,
    statementTimeoutMs: config.statementTimeoutMs,
    applicationName: 'hostdir-migrate',
  });
  try {
    await fn(direct);
  } finally {
    await direct.close();
  }
}
