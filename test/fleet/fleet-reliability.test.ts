// The fleet reliability suite's fast slice (reliability/fleet.suite.ts): 4 `keelson worker`
// processes serve a few sessions × 5 turns while workers are SIGKILLed and their connections
// terminated; every session's log verifies clean and every prompt ran exactly once.
import { expect, test } from "vitest";
import suite from "../../reliability/fleet.suite.js";
import { runFastSlice } from "../reliability/fast-slice.js";

// Bounds a stuck run; the suite itself fails a run in which no turn finishes for 60 s.
const TIMEOUT_MS = 180_000;

test(
  `fleet: ${suite.fastTrials} sessions × 5 turns on 4 workers with faults, each prompt exactly once`,
  async () => {
    const result = await runFastSlice(suite);
    expect(result.counts["requests verified"]).toBeGreaterThanOrEqual(suite.fastTrials * 5);
    expect(result.counts["workers crashed"]).toBe(0);
  },
  TIMEOUT_MS,
);
