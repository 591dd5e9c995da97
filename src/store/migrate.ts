// Runs the SQL migrations in ./migrations at start, one process at a time.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Postgrator from 'postgrator';
import type { Database } from './db.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// The .sql files live beside the sources; the compiled module finds them from dist/ too.
const MIGRATIONS = path.resolve(here, '../../src/store/migrations');

// Any constant shared by every hostdir process: concurrent starts wait for one another's migrations.
const MIGRATION_LOCK = 72_617_001;

export async function migrate(db: Database): Promise<void> {
  await db.session(async (session) => {
    await session.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const postgrator = new Postgrator({
        migrationPattern: path.join(MIGRATIONS, '*.sql').replaceAll('\\', '/'),
        driver: 'pg',
        schemaTable: 'schema_migrations',
        execQuery: (sql: string) => session.query(sql),
        // Each migration applies whole or not at all.
        execSqlScript: (sql: string) => session.exec(`BEGIN;\n${sql}\n;COMMIT;`),
      });
      await postgrator.migrate();
    } finally {
      await session.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  });
}
