// Clean-ups for the current test, run after each test of every file by the setup file
// test/support/run-test-cleanups.ts. The suite runs with `isolate: false` (vitest.config.ts), so
// a support module is evaluated once per worker: an `afterEach` it registered at its top level
// ran after the tests of the first file that imported it only, and every later file's temp
// directories and emulator servers were left behind (~150 directories in /tmp per run). A
// support module registers what it made here instead; the setup file, evaluated for every test
// file, runs them.
type Cleanup = () => unknown;

const afterTest: Cleanup[] = [];
const afterFile: Cleanup[] = [];

/** Runs `cleanup` once the current test ends (the last registered first). */
export function afterThisTest(cleanup: Cleanup): void {
  afterTest.push(cleanup);
}

/** Runs `cleanup` once the current test file's tests all ran (for what a `beforeAll` makes too). */
export function afterThisFile(cleanup: Cleanup): void {
  afterFile.push(cleanup);
}

/** After each test: its clean-ups. */
export const runTestCleanups = (): Promise<void> => runAll(afterTest);
/** After each file: its clean-ups. */
export const runFileCleanups = (): Promise<void> => runAll(afterFile);

/** Runs and forgets `cleanups`, the last registered first; a failure is rethrown after the rest ran. */
async function runAll(cleanups: Cleanup[]): Promise<void> {
  let failure: unknown;
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}
