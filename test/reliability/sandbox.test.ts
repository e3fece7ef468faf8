// The sandbox suite's fast slice (reliability/sandbox.suite.ts): every escape case once, three
// ways — confined (blocked; or refused, nothing run, where this machine cannot sandbox), with
// bubblewrap forced missing (refused, nothing run), and unconfined (the escape works: the probes
// can see one). Runs on machines with and without bubblewrap; KEELSON_BWRAP=/missing npm test
// takes the fail-closed path everywhere.
import { expect, test } from "vitest";
import { sandboxSupport } from "../../src/sandbox/index.js";
import { SANDBOX_CASES } from "../../reliability/sandbox-cases.js";
import suite from "../../reliability/sandbox.suite.js";
import { runFastSlice } from "./fast-slice.js";

// Bounds a run whose sandbox misbehaves (the fork bomb's own backstop is 60 s); not a wait.
const TIMEOUT_MS = 300_000;

test(
  `sandbox: ${SANDBOX_CASES.length} escapes blocked (or refused where it cannot start), refused with bwrap missing, seen unconfined`,
  async () => {
    const result = await runFastSlice(suite);
    const support = await sandboxSupport();
    const skipped = Object.keys(result.counts).filter((k) => k.startsWith("skipped: ")).length;
    const ran = SANDBOX_CASES.length - skipped;
    expect(ran).toBeGreaterThan(SANDBOX_CASES.length / 2);
    if (support.ok) expect(result.counts["on: blocked"]).toBe(ran);
    else expect(result.counts["on: refused (no sandbox here)"]).toBe(ran);
    expect(result.counts["forced unavailable: refused"]).toBe(ran);
    // Most probes were shown able to see an escape.
    expect(result.counts["off: escapes"]).toBeGreaterThan(ran / 2);
  },
  TIMEOUT_MS,
);
