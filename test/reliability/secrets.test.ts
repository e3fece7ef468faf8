// The secrets suite's fast slice (reliability/secrets.suite.ts): sessions through the CLI and
// the library with fake provider keys, on the emulator; no key material in any log, output or
// error. Three trials cover the Anthropic, OpenAI and DeepSeek adapters.
import { test } from "vitest";
import { runFastSlice } from "./fast-slice.js";
import suite from "../../reliability/secrets.suite.js";

// Each trial runs about eight CLI subprocesses; this bounds a hung one, it is not a wait.
const TIMEOUT_MS = 300_000;

test(
  `secrets: ${suite.fastTrials} trials, no key material anywhere`,
  async () => {
    await runFastSlice(suite);
  },
  TIMEOUT_MS,
);
