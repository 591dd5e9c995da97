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
