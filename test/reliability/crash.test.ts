// The crash suite's fast slice (reliability/crash.suite.ts): child processes running scripted
// sessions on the JSONL store are SIGKILLed at seeded points — inside model calls and inside
// tools with side effects — and every trial must pass.
import { expect, test } from "vitest";
import { runFastSlice } from "./fast-slice.js";
import suite from "../../reliability/crash.suite.js";

// Bounds a hung child; the suite itself waits on the children's lines, never on time.
const TIMEOUT_MS = 180_000;

const countOf = (counts: Readonly<Record<string, number>>, prefix: string): number =>
  Object.entries(counts)
    .filter(([kind]) => kind.startsWith(prefix))
    .reduce((sum, [, n]) => sum + n, 0);

test(
  `crash: ${suite.fastTrials} killed sessions, each durable as reported, repaired durably, resumable`,
  async () => {
    const result = await runFastSlice(suite);
    // Both kinds of kill point were exercised, and a killed tool's call was repaired each time.
    expect(countOf(result.counts, "killed-in-model-call")).toBeGreaterThan(0);
    const inTool = countOf(result.counts, "killed-in-tool:");
    expect(inTool).toBeGreaterThan(0);
    expect(result.counts["in-flight-call-repaired"]).toBe(inTool);
    expect(result.counts["side-effect-with-call-on-disk"]).toBeGreaterThan(0);
  },
  TIMEOUT_MS,
);
