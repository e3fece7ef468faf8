// The cancellation reliability suite at its fast count, from a fixed seed: a cancel or dispose at
// every kind of point leaves closed turns, answered tools, the full prefix and a working next turn.
import { expect, test } from "vitest";
import { runFastSlice } from "./fast-slice.js";
import suite from "../../reliability/cancellation.suite.js";
import { CANCEL_POINTS } from "../../reliability/cancellation-plan.js";

test(`cancellation: ${suite.fastTrials} runs, each cancelled or disposed at a seeded point, hold every property`, async () => {
  const result = await runFastSlice(suite);
  for (const point of CANCEL_POINTS) expect(result.counts[point], point).toBeGreaterThan(0);
}, 60_000);
