// Runs a reliability suite at its fast count with the fixed test seed and asserts every trial
// passed; returns the result for suite-specific checks on its counts.
import { expect } from "vitest";
import type { ReliabilitySuite, SuiteResult } from "../../reliability/suite.js";

export const TEST_SEED = 20261202;

export async function runFastSlice(suite: ReliabilitySuite): Promise<SuiteResult> {
  const result = await suite.run({ trials: suite.fastTrials, seed: TEST_SEED });
  expect(result.failures).toEqual([]);
  expect(result.passed).toBe(result.trials);
  expect(result.trials).toBe(suite.fastTrials);
  return result;
}
