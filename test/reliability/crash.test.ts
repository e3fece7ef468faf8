// The crash suite's fast slice (reliability/crash.suite.ts): child processes running scripted
// sessions on the JSONL store are SIGKILLed at seeded points; every trial must pass.
import { expect, test } from "vitest";
import suite from "../../reliability/crash.suite.js";

// Bounds a hung child; the suite itself waits on the children's lines, never on time.
const TIMEOUT_MS = 180_000;

test(
  `crash: ${suite.fastTrials} killed sessions, each durable as reported, repaired durably, resumable`,
  async () => {
    const result = await suite.run({ trials: suite.fastTrials, seed: 20261202 });
    expect(result.failures).toEqual([]);
    expect(result.passed).toBe(result.trials);
    expect(result.trials).toBe(suite.fastTrials);
  },
  TIMEOUT_MS,
);
