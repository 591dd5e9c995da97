import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The external tier: suites that need more than Node and npm (PostgreSQL, PgBouncer, a streaming replica, nginx,
 * Chromium, zsh or curl), and those that start the real server as processes of its own (`node dist/main.js`, the
 * `hostdir` command, a compiler) and talk to it over HTTP, which take minutes together. Every other suite is the unit
 * tier: the core, the web pages, the sync service in-process, the HTTP layer through `app.inject` and the embedded
 * store, which `npm test` runs on that store alone (suites over STORES, test/support/server.ts, hold that store's tests
 * only; HOSTDIR_TEST_STORES=embedded). `npm run test:all`, what CI runs, leaves HOSTDIR_TEST_STORES unset: both tiers
 * on both stores.
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
  // the real server, started as a process, over HTTP: the end-to-end suites, the interface document's, hostile input
  // and secrets in what the server logs and stores, the hostdir command against the server
  'test/e2e/**/*.test.ts',
  'test/seed/**/*.test.ts',
  'test/security/**/*.test.ts',
  'test/cli/*.e2e.test.ts',
  'test/cli/push.test.ts',
  // suites on a PostgreSQL server alone
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
    // End-to-end suites start real servers and databases, and wait on them (for a digest's schedule, a restart, a
    // timeout) a third of the time: two cores keep three files going at once.
    maxWorkers: 3,
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
