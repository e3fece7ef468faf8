// approvals (#23 §1, P28): pauses for a person that survive restarts. Trials, by index (of 10:
// 4 kill, 3 race, 3 fork):
//   kill  a child process brings an approval session to a kill point — a live approver asked
//         and silent, paused (awaiting-approval), decided but the tool not yet run, inside the
//         approved tool after its side effect, or done — and is SIGKILLed; the session is
//         resumed (crash repair), what is pending is decided, the turn completes;
//   race  two deciders on one pending call at once (same agent, or a second writer refused by
//         the lock): exactly one decision is logged, the other is a typed error;
//   fork  a paused session forked at its awaiting turn/end, parent and child deciding the same
//         calls differently at once.
// Every final log is checked against the effects file (approvals-checks.ts): 0 tools lost, 0 run
// twice, none run without a logged approving decision, each call answered once, logs verify.
import { mulberry32 } from "../src/emulator/index.js";
import { forkTrial, raceTrial } from "./approvals-inproc.js";
import { KILL_MODES, type KillTrial, runKillBatch } from "./approvals-kill.js";
import { type ReliabilitySuite, resultOf, type SuiteResult, type TrialOutcome } from "./suite.js";
import { runTrials } from "./trial-pool.js";

/** Kill sessions per child (a child that loads the loop costs about a second of CPU to start). */
const BATCH = 8;

const trialSeed = (seed: number, trial: number): number => (seed ^ Math.imul(trial + 1, 0x9e3779b1)) >>> 0;
const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function inProcess(index: number, seed: number): Promise<TrialOutcome> {
  const kind = index % 10 < 7 ? "race" : "fork";
  try {
    return { kinds: kind === "race" ? await raceTrial(seed) : await forkTrial(seed) };
  } catch (error) {
    return { failure: `trial ${index} (seed ${seed}, ${kind}): ${describe(error)}` };
  }
}

const suite: ReliabilitySuite = {
  name: "approvals",
  checks:
    "SIGKILL between approval request and decision (and around the approved tool), racing deciders, decisions on a fork: 0 tools lost or run twice",
  fullTrials: 200,
  fastTrials: 20,
  async run({ trials, seed, log }): Promise<SuiteResult> {
    const started = performance.now();
    const kills: KillTrial[] = [];
    const others: number[] = [];
    for (let i = 0; i < trials; i++) {
      const s = trialSeed(seed, i);
      if (i % 10 < 4)
        kills.push({ index: i, seed: s, mode: KILL_MODES[Math.floor(mulberry32(s)() * KILL_MODES.length)]! });
      else others.push(i);
    }
    const batches = Array.from({ length: Math.ceil(kills.length / BATCH) }, (_, b) =>
      kills.slice(b * BATCH, (b + 1) * BATCH),
    );
    let done = 0;
    const progress = (n: number): void => {
      done += n;
      if (done % 40 < n || done === trials) log?.(`${done}/${trials} trials checked`);
    };
    const [killed, inproc] = await Promise.all([
      runTrials(batches.length, 1, async (b) => {
        const outcomes = await runKillBatch(batches[b]!);
        progress(outcomes.length);
        return outcomes;
      }),
      runTrials(others.length, 2, async (k) => {
        const outcome = await inProcess(others[k]!, trialSeed(seed, others[k]!));
        progress(1);
        return outcome;
      }),
    ]);
    return resultOf(suite.name, [...killed.flat(), ...inproc], started);
  },
};

export default suite;
