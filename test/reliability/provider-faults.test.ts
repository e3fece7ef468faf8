// The provider-faults reliability suite at its fast count, from a fixed seed: every session
// through the real adapters under injected faults holds every checked property.
import { expect, test } from "vitest";
import { runFastSlice } from "./fast-slice.js";
import suite from "../../reliability/provider-faults.suite.js";

test(`provider-faults: ${suite.fastTrials} sessions under 20% injected faults hold every property`, async () => {
  const result = await runFastSlice(suite);
  expect(result.counts.steps).toBeGreaterThan(10 * suite.fastTrials * 0.8);
}, 60_000);
