// The tools suite's fast slice (reliability/tools.suite.ts): the built-in tools against a hostile
// workspace — special files, binary and Latin-1 files, a sparse 2 GiB file, hard links and
// symlinks to outside files, catastrophic regexes and globs — and a few swap races. Every
// call answers within its bound without blocking the event loop, never shows or changes anything
// outside the workspace, and never changes bytes it was not asked to change.
import { expect, test } from "vitest";
import { runFastSlice } from "./fast-slice.js";
import { TOOL_CASES } from "../../reliability/tools-cases.js";
import suite from "../../reliability/tools.suite.js";

// Bounds a run in which tools hang (each hung call costs the suite's 15 s watchdog); not a wait.
const TIMEOUT_MS = 300_000;

const GROUPS = ["special", "encoding", "huge", "hard-link", "symlink", "catastrophic", "scan"];

test(
  `tools: ${TOOL_CASES.length} hostile calls and ${suite.fastTrials - TOOL_CASES.length} swap races are bounded, escape nothing and corrupt nothing`,
  async () => {
    const result = await runFastSlice(suite);
    const countOf = (prefix: string): number =>
      Object.entries(result.counts)
        .filter(([kind]) => kind.startsWith(`${prefix} `))
        .reduce((sum, [, n]) => sum + n, 0);
    for (const group of GROUPS) expect(countOf(group), group).toBeGreaterThan(0);
    // The races raced: the swapper really swapped while they ran.
    expect(result.counts["race file swaps"]).toBeGreaterThan(0);
    expect(result.counts["race dir swaps"]).toBeGreaterThan(0);
    expect(result.counts["race hardlink swaps"]).toBeGreaterThan(0);
  },
  TIMEOUT_MS,
);
