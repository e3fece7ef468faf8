// The provider-faults reliability suite at its fast count, from a fixed seed: every session
// through the real adapters under injected faults holds every checked property.
import { expect, test } from "vitest";
import suite from "../../reliability/provider-faults.suite.js";

test(`provider-faults: ${suite.fastTrials} sessions under 20% injected faults hold every property`, async () => {
  const result = await suite.run({ trials: suite.fastTrials, seed: 20261202 });
  expect(result.failures).toEqual([]);
  expect(result.passed).toBe(result.trials);
  expect(result.trials).toBe(suite.fastTrials);
  expect(result.counts.steps).toBeGreaterThan(10 * suite.fastTrials * 0.8);
}, 60_000);
