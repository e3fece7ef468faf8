// The crash suite's fast slice (reliability/crash.suite.ts): child processes running scripted
// sessions on the JSONL store are SIGKILLed at seeded points; every trial must pass.
import { test } from "vitest";
import { runFastSlice } from "./fast-slice.js";
import suite from "../../reliability/crash.suite.js";

// Bounds a hung child; the suite itself waits on the children's lines, never on time.
const TIMEOUT_MS = 180_000;

test(
  `crash: ${suite.fastTrials} killed sessions, each durable as reported, repaired durably, resumable`,
  async () => {
    await runFastSlice(suite);
  },
  TIMEOUT_MS,
);
