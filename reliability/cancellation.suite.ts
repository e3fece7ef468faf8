// cancellation: 1000 runs of an in-process agent (ScriptedProvider, no HTTP, no timers) in which
// a cancel(), a dispose() or both land at a seeded random point — before the turn starts, in
// prompt-submit, during session-prefix composition, in a pre-step or request listener,
// mid-stream, during a retry backoff, between tools, inside a tool, after a step, at turn/end —
// and the next turn (or the resumed instance) must work. Plan: cancellation-plan.ts; rig:
// cancellation-rig.ts; driving: cancellation-run.ts; properties: cancellation-checks.ts.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlSessionStore } from "../src/store/index.js";
import { checkTrial } from "./cancellation-checks.js";
import { runTrial } from "./cancellation-run.js";
import { CANCEL_POINTS, planTrial } from "./cancellation-plan.js";
import { OutcomeCounter, type ReliabilitySuite, type SuiteResult } from "./suite.js";

/** One seed per trial, spread so neighbouring trials draw unrelated plans. */
const trialSeed = (seed: number, trial: number): number => (seed ^ Math.imul(trial + 1, 0x85ebca6b)) >>> 0;

const suite: ReliabilitySuite = {
  name: "cancellation",
  checks:
    "cancel/dispose at a random point: turns closed, tools answered, no degraded prefix, next turn/instance works",
  fullTrials: 1000,
  fastTrials: 100,
  async run({ trials, seed, log }): Promise<SuiteResult> {
    const started = performance.now();
    // The store is the real JSONL store; on tmpfs (when there is one) its fsyncs cost nothing.
    const root = await mkdtemp(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "keelson-cancellation-"));
    const store = new JsonlSessionStore({ root });
    const byPoint = new Map<string, number>(CANCEL_POINTS.map((p) => [p, 0]));
    const other = new OutcomeCounter();
    const failures: string[] = [];
    let passed = 0;
    try {
      for (let trial = 0; trial < trials; trial++) {
        const plan = planTrial(trialSeed(seed, trial));
        let problems: string[];
        try {
          const run = await runTrial(plan, store);
          problems = checkTrial(run);
          const settled =
            "outcome" in run.cancelled ? run.cancelled.outcome.reason.kind : `rejected-${run.cancelled.rejected}`;
          other.add(`end:${settled}`);
        } catch (error) {
          problems = [`the trial threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`];
        }
        byPoint.set(plan.point, byPoint.get(plan.point)! + 1);
        other.add(plan.action);
        if (problems.length === 0) passed++;
        else
          failures.push(
            `trial ${trial} (seed ${plan.seed}, ${plan.action} at ${plan.point}, ${plan.style}, step ${plan.step} of rounds [${plan.rounds}]): ${problems.slice(0, 3).join("; ")}${problems.length > 3 ? ` (+${problems.length - 3} more)` : ""}`,
          );
        if ((trial + 1) % 100 === 0 || trial + 1 === trials) log?.(`${trial + 1}/${trials} runs, ${passed} passed`);
      }
    } finally {
      await store.close();
      await rm(root, { recursive: true, force: true });
    }
    return {
      suite: suite.name,
      trials,
      passed,
      failures,
      counts: { ...Object.fromEntries(byPoint), ...other.toJSON() },
      ms: performance.now() - started,
    };
  },
};

export default suite;
