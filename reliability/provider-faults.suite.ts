// provider-faults: agents driven through the real Anthropic and OpenAI-compatible adapters (the
// official SDKs, over HTTP to the emulator on 127.0.0.1) while the emulator injects a seeded
// fault — HTTP 429/500/503/529, a mid-stream error, a reset, a stall, malformed SSE, a missing
// end marker — on 20% of requests, plus one fault per session rotating through the kinds (so
// every 9 sessions see all nine). The seeded faults are transient (never as many in a row as the
// session's retry budget), and every turn they touch must complete; one session in three is an
// outage instead — its forced fault strikes every attempt of one step — and exactly that turn
// must end with the kind's typed error. A trial is one session of several turns with tool rounds
// (12 planned model steps; 50 sessions ≈ 600 steps). Plan and run: provider-faults-session.ts;
// properties: provider-faults-checks.ts.
import { FAULT_KINDS } from "../src/emulator/index.js";
import { OutcomeCounter, type ReliabilitySuite, type SuiteResult } from "./suite.js";
import { checkSession } from "./provider-faults-checks.js";
import { planSession, runSession } from "./provider-faults-session.js";

/** One seed per trial, spread so neighbouring trials draw unrelated faults. */
const trialSeed = (seed: number, trial: number): number => (seed ^ Math.imul(trial + 1, 0x9e3779b1)) >>> 0;

const suite: ReliabilitySuite = {
  name: "provider-faults",
  checks:
    "faults on 20% of requests via real SDKs: transient ones never end a turn, an outage ends its turn typed; every attempt logged, wire = log, no partial output",
  fullTrials: 50,
  fastTrials: 9,
  async run({ trials, seed, log }): Promise<SuiteResult> {
    const started = performance.now();
    const totals = new OutcomeCounter();
    const faults = new OutcomeCounter();
    const ends = new OutcomeCounter();
    const failures: string[] = [];
    let passed = 0;
    for (let trial = 0; trial < trials; trial++) {
      const plan = planSession(trial, trialSeed(seed, trial));
      let problems: string[];
      try {
        const run = await runSession(plan);
        const verdict = checkSession(run);
        problems = verdict.problems;
        totals.add("steps", run.events.filter((e) => e.type === "step/start").length);
        totals.add("requests", run.recorded.length);
        totals.add("retries", run.events.filter((e) => e.type === "llm/retry").length);
        for (const a of verdict.attempts) {
          if (a.fault !== undefined) faults.add(a.fault);
          if (a.spurious) totals.add("spurious-stall");
        }
        if (plan.outage) totals.add("outage-sessions");
        for (const o of run.outcomes)
          ends.add(
            o.reason.kind === "error"
              ? `${plan.outage ? "outage " : ""}end:error/${o.reason.code}`
              : `end:${o.reason.kind}`,
          );
      } catch (error) {
        problems = [`the session threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`];
      }
      if (problems.length === 0) passed++;
      else
        failures.push(
          `trial ${trial} (seed ${plan.seed}, ${plan.flavor}, maxAttempts ${plan.maxAttempts}, ${plan.forced.kind} at step ${plan.forced.atStep}): ${problems.slice(0, 3).join("; ")}${problems.length > 3 ? ` (+${problems.length - 3} more)` : ""}`,
        );
      if ((trial + 1) % 10 === 0 || trial + 1 === trials) log?.(`${trial + 1}/${trials} sessions, ${passed} passed`);
    }
    // Totals, then faults by kind (in FAULT_KINDS order), then turn ends by reason.
    const byKind = faults.toJSON();
    const endCounts = Object.entries(ends.toJSON()).sort(([a], [b]) =>
      a === "end:completed" ? -1 : b === "end:completed" ? 1 : a.localeCompare(b),
    );
    const counts = {
      ...totals.toJSON(),
      ...Object.fromEntries(FAULT_KINDS.map((k) => [k, byKind[k] ?? 0])),
      ...Object.fromEntries(endCounts),
    };
    return { suite: suite.name, trials, passed, failures, counts, ms: performance.now() - started };
  },
};

export default suite;
