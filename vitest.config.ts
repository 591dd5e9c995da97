import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end suites start real servers and databases; two cores run two files at once.
    maxWorkers: 2,
    minWorkers: 1,
    reporters: ['default', './test/support/no-skips.ts'],
    // One migrated embedded store per run, copied by each test that needs a fresh one.
    globalSetup: ['./test/support/embedded-template.ts'],
  },
});
