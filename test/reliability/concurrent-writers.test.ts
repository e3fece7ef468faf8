// The concurrent-writers suite's fast slice (reliability/concurrent-writers.suite.ts): writer
// processes contend for one session; a held session refuses every other writer with a typed
// `locked` error and changes nothing, and of two writers racing to open exactly one wins.
import { test } from "vitest";
import { runFastSlice } from "./fast-slice.js";
import suite from "../../reliability/concurrent-writers.suite.js";

// Bounds a hung child; the suite itself waits on the children's lines, never on time.
const TIMEOUT_MS = 180_000;

test(
  `concurrent-writers: ${suite.fastTrials} trials of held-session refusals and racing opens`,
  async () => {
    await runFastSlice(suite);
  },
  TIMEOUT_MS,
);
