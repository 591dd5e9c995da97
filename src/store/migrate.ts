// Runs the SQL migrations in ./migrations at start, one process at a time, through PgBouncer or not.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Postgrator from 'postgrator';
import type { Database } from './db.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// The .sql files live beside the sources; the compiled module finds them from dist/ too.
const MIGRATIONS = path.resolve(here, '../../src/store/migrations');

// Any constant shared by every hostdir process: concurrent starts wait for one another's migrations.
const MIGRATION_LOCK = 72_617_001;

/**
 * Every pending migration, and the version table's own creation, in one transaction that first takes a
 * transaction-level advisory lock. A session-level lock would not do: through PgBouncer in transaction mode, the
 * statements of one client connection outside a transaction go to whichever server connection is free, so the lock
 * was taken on one and the migrations ran (and the unlock was sent) on others: processes starting together applied
 * the same migration twice, or waited forever on a lock left behind on a pooled connection. A transaction keeps
 * one server connection from BEGIN to COMMIT, and its lock ends with it whatever happens to the client. Processes
 * that start together queue on the lock; the first applies what is missing, the others then find nothing to do.
 * `to` stops at that version (a test of a migration starts from the one before it); the default is the latest.
 */
export async function migrate(db: Database, to?: string): Promise<void> {
  await db.session(async (session) => {
    await session.exec('BEGIN');
    try {
      await session.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const postgrator = new Postgrator({
        migrationPattern: path.join(MIGRATIONS, '*.sql').replaceAll('\\', '/'),
        driver: 'pg',
        schemaTable: 'schema_migrations',
        execQuery: (sql: string) => session.query(sql),
        execSqlScript: (sql: string) => session.exec(sql),
      });
      await postgrator.migrate(to);
      await session.exec('COMMIT');
    } catch (error) {
      await session.exec('ROLLBACK').catch(() => {});
      throw error;
    }
  });
}
