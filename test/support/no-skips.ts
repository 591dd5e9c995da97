// Fails the run in CI when any test was skipped or left as todo: every suite must really run there.
import type { Reporter, TestModule } from 'vitest/node';

export default class NoSkips implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (!process.env.HOSTDIR_FORBID_SKIPS) return;
    const skipped: string[] = [];
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'skipped' || state === 'pending') skipped.push(`${module.moduleId} › ${test.fullName}`);
      }
    }
    if (skipped.length > 0) {
      console.error(`\n${skipped.length} test(s) were skipped, which CI does not allow:\n  ${skipped.join('\n  ')}`);
      process.exitCode = 1;
    }
  }
}
