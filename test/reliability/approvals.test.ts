// The approvals suite's fast slice (reliability/approvals.suite.ts): kill -9 between an approval
// request and its decision (and around the approved tool), two deciders racing, decisions on a
// fork — every trial passes: no tool lost or run twice, none run without an approving decision.
import { expect, test } from "vitest";
import suite from "../../reliability/approvals.suite.js";
import { runFastSlice } from "./fast-slice.js";

// Bounds a hung child; the suite itself waits on the child's lines, never on time.
const TIMEOUT_MS = 180_000;

test(
  `approvals: ${suite.fastTrials} trials of kills, races and forks lose no tool and run none twice`,
  async () => {
    const result = await runFastSlice(suite);
    const killed = Object.entries(result.counts).filter(([kind]) => kind.startsWith("killed-"));
    expect(killed.length).toBeGreaterThan(0);
    expect(result.counts.forked).toBeGreaterThan(0);
    expect((result.counts["race-already-decided"] ?? 0) + (result.counts["race-refused-by-lock"] ?? 0)).toBeGreaterThan(
      0,
    );
    expect(result.counts["ran-once"]).toBeGreaterThan(0);
  },
  TIMEOUT_MS,
);
