// W9 the bash sandbox's cost per command (issue #26): the `bash` tool running `true` unconfined
// (the baseline, measured in the same run) and in the default sandbox (workspace-write: bubblewrap
// with its namespaces, mounts, seccomp filter and status pipe, plus the support check and the
// hidden-path lookups the tool makes per command). Rows interleaved round-robin, so machine noise
// hits both alike; the figure is the median added per command. Goal: ≤ 15 ms added.
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { bashTool, Workspace } from "../src/builtin-tools/index.js";
import { type SandboxMode, sandboxSupport } from "../src/sandbox/index.js";
import { type Cell, num } from "./table.js";
import type { WorkloadResult } from "./workload.js";

/** Samples per row (odd: the median is one of them), after WARMUP discarded rounds. */
const RUNS = 41;
const WARMUP = 3;
const GOAL_MS = 15;

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const p90 = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;

/** One `true` through the tool; its wall time in ms (it must succeed, or the row measures a failure). */
async function once(tool: ReturnType<typeof bashTool>): Promise<number> {
  const t0 = performance.now();
  const out = await tool.execute(
    { command: "true" },
    { callId: "c", sessionId: "s", signal: new AbortController().signal },
  );
  const ms = performance.now() - t0;
  if (typeof out === "string" || out.isError === true)
    throw new Error(`W9: bash true failed: ${JSON.stringify(out).slice(0, 300)}`);
  return ms;
}

export async function runW9(): Promise<WorkloadResult> {
  const support = await sandboxSupport();
  const root = await mkdtemp(join(tmpdir(), "keelson-w9-"));
  const loadStart = loadavg()[0]!;
  try {
    const modes: SandboxMode[] = support.ok ? ["off", "workspace-write"] : ["off"];
    const tools = modes.map((sandbox) => bashTool({ workspace: new Workspace({ root }), sandbox }));
    const samples = modes.map((): number[] => []);
    for (let round = 0; round < WARMUP + RUNS; round++)
      for (const [i, tool] of tools.entries()) {
        const ms = await once(tool);
        if (round >= WARMUP) samples[i]!.push(ms);
      }
    const base = median(samples[0]!);
    const rows: Cell[][] = modes.map((mode, i) => {
      const m = median(samples[i]!);
      const added = m - base;
      return [
        mode === "off" ? "bash true, sandbox off (baseline)" : `bash true, sandbox ${mode} (bwrap)`,
        m,
        p90(samples[i]!),
        i === 0 ? undefined : `+${num(added)}`,
        i === 0 ? "baseline" : `≤ ${GOAL_MS} ms added`,
        i === 0 ? undefined : added <= GOAL_MS ? "met" : "missed",
      ];
    });
    return {
      id: "W9",
      table: {
        title: "W9 the bash sandbox — cost per command of bubblewrap, vs the same command unconfined",
        columns: ["row", "median ms", "p90 ms", "added ms", "goal", "result"],
        rows,
        notes: [
          `median of ${RUNS} calls of the bash tool per row (after ${WARMUP} discarded rounds), rows interleaved round-robin; wall = execute → result`,
          support.ok
            ? `sandbox: ${support.version} (${support.bwrap}); load average ${loadStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end`
            : `sandbox unavailable here (${support.reason}): only the baseline row`,
        ],
      },
      data: { support, samples: Object.fromEntries(modes.map((m, i) => [m, samples[i]])) },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
