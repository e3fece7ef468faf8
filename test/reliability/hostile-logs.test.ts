// The hostile-logs reliability suite at its fast count, from a fixed seed: every corrupted log
// loads identically, is repaired with a notice, loads as a clean prefix or a faithful rewrite,
// or is refused with a typed error — never an untyped error, a polluted prototype or a silently
// different load (reliability/hostile-logs-oracle.ts).
import { expect, test } from "vitest";
import { runFastSlice } from "./fast-slice.js";
import { CORRUPTION_KINDS } from "../../reliability/hostile-logs-cases.js";
import { MAX_ERROR_CHARS } from "../../reliability/hostile-logs-oracle.js";
import suite from "../../reliability/hostile-logs.suite.js";

// Bounds a hang on a slow or busy disk; the suite never waits on time.
const TIMEOUT_MS = 120_000;

test(
  `hostile logs: ${suite.fastTrials} corrupted logs each load identically, repaired, as a clean prefix or faithful rewrite, or are refused with a typed error`,
  async () => {
    const result = await runFastSlice(suite);
    for (const outcome of ["identical", "repaired", "prefix", "rewritten", "rejected"])
      expect(result.counts[outcome], outcome).toBeGreaterThan(0);
    const outcomesOf = (kind: string): string[] =>
      Object.keys(result.counts).filter((key) => key.startsWith(`${kind}/`));
    for (const kind of CORRUPTION_KINDS) expect(outcomesOf(kind).length, `${kind} was never tried`).toBeGreaterThan(0);
    // A respelling changes no value, so it must load identically; nothing in an empty or foreign file may load.
    expect(outcomesOf("noop")).toEqual(["noop/identical"]);
    // Errors quote hostile values (megabyte strings) in bounded form: one readable line each. The
    // oracle fails any trial whose message is longer, at every seed (seed 91827 once gave 1 MiB).
    expect(result.counts["longest rejection message (chars)"]).toBeLessThanOrEqual(MAX_ERROR_CHARS);
    expect(outcomesOf("empty")).toEqual(["empty/rejected"]);
    expect(outcomesOf("foreign")).toEqual(["foreign/rejected"]);
  },
  TIMEOUT_MS,
);
