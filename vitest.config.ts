import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The suites that need more than Node and npm: PostgreSQL, PgBouncer, a streaming replica, nginx, Chromium, zsh or
 * curl. Every other suite is the unit tier, which `npm test` runs on the embedded store alone (suites over STORES,
 * test/support/server.ts, hold that store's tests only). `npm run test:all`, what CI runs, runs the unit tier on both
 * stores and these suites.
 */
const EXTERNAL = [
  // PostgreSQL, PgBouncer, replicas and nginx in front of real servers
  'test/production/**/*.test.ts',
  // the benchmarks, run small, on PostgreSQL and behind nginx
  'test/bench/**/*.test.ts',
  // Chromium, driven by playwright-core
  'test/**/*browser*.test.ts',
  // the README's session, run with curl in bash and in zsh
  'test/docs/readme-session.test.ts',
  // suites on a PostgreSQL server alone
  'test/cli/billing-push.e2e.test.ts',
  'test/cli/push.test.ts',
  'test/e2e/kept-rates.test.ts',
  'test/e2e/listing-figures.test.ts',
  'test/e2e/openapi.test.ts',
  'test/security/auth.test.ts',
  'test/security/fairness.test.ts',
  'test/security/limits.test.ts',
  'test/security/memory.test.ts',
  'test/security/refusals.test.ts',
  'test/security/tenants.test.ts',
  'test/seed/interface-document-internal-error.test.ts',
  'test/http/directory-timeout.test.ts',
  'test/store/conflict-retry.test.ts',
  'test/store/instants.test.ts',
  'test/store/listing-plans.test.ts',
  'test/store/prepared.test.ts',
  'test/store/receipts-migration.test.ts',
  'test/store/search-plans.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end suites start real servers and databases; two cores run two files at once.
    maxWorkers: 2,
    minWorkers: 1,
    reporters: ['default', './test/support/no-skips.ts'],
    // One migrated embedded store per run, copied by each test that needs a fresh one.
    globalSetup: ['./test/support/embedded-template.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...EXTERNAL] },
      },
      { extends: true, test: { name: 'external', include: EXTERNAL } },
    ],
  },
});
