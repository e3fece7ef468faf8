// Prints the plain closing line CI reads: `N passed, N failed, N skipped`. It never says
// "0 failed" on a failing run: a test file that failed without a failed test of its own (it did not
// load, or its set-up threw so its tests were skipped) counts as one failed, and so does every
// unhandled error the runner reports.
import type { Reporter, TestModule } from "vitest/node";

export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of testModules) {
      let failedHere = 0;
      for (const t of m.children.allTests()) {
        const s = t.result().state;
        if (s === "passed") passed++;
        else if (s === "failed") failedHere++;
        else skipped++;
      }
      failed += failedHere === 0 && m.state() === "failed" ? 1 : failedHere;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
