// Chooses the adapter: PostgreSQL when DATABASE_URL is set, the embedded store under DATA_DIR otherwise.
import path from 'node:path';
import type { Config } from '../config.js';
import type { Database } from './db.js';
import { PostgresDatabase } from './postgres.js';
import { DirectoryReads, type DirectoryReadsOptions } from './replicas.js';

export async function openDatabase(config: Config): Promise<Database> {
  if (config.databaseUrl) {
    return new PostgresDatabase({
      url: config.databaseUrl,
      poolSize: config.dbPoolSize,
      statementTimeoutMs: config.statementTimeoutMs,
    });
  }
  // Loaded only for the embedded store: PGlite's code is no part of a server on PostgreSQL.
  const { EmbeddedDatabase } = await import('./embedded.js');
  const dir = path.join(config.dataDir, 'pglite');
  try {
    return await EmbeddedDatabase.open(dir);
  } catch (error) {
    throw new Error(
      `the embedded store in ${dir} cannot be opened: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * Runs fn on the database the migrations need: a session-level advisory lock must stay on one server
 * connection, which a transaction-mode pooler (PgBouncer) does not give; MIGRATION_DATABASE_URL bypasses it.
 */
export async function withMigrationDatabase(
  config: Config,
  db: Database,
  fn: (db: Database) => Promise<void>,
): Promise<void> {
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

/**
 * The replicas of DATABASE_READ_URL behind the routing of the directory's reads, or null without any. Checked four
 * times per REPLICA_MAX_LAG_SECONDS (at most every second), so that a replica is set aside before it is that late.
 */
export function openDirectoryReads(
  config: Config,
  primary: Database,
  onChange: DirectoryReadsOptions['onChange'],
): DirectoryReads | null {
  if (config.databaseReadUrls.length === 0) return null;
  const replicas = config.databaseReadUrls.map((url, k) => ({
    name: String(k + 1),
    db: new PostgresDatabase({
      url,
      poolSize: config.dbPoolSize,
      statementTimeoutMs: config.statementTimeoutMs,
      applicationName: 'hostdir-directory',
      // A replica that does not answer is not waited for as long as the primary: the primary can answer instead.
      connectTimeoutMs: 2_000,
    }),
  }));
  return new DirectoryReads(primary, replicas, {
    maxLagSeconds: config.replicaMaxLagSeconds,
    checkIntervalMs: Math.min(1_000, config.replicaMaxLagSeconds * 250),
    onChange,
  });
}
