// crash: child processes run seeded scripted sessions (createAgent + ScriptedProvider + tools,
// several turns with tool calls) on the JSONL store and are SIGKILLed at random points drawn
// from the seed. After each kill, per session: every event the child reported durable is on
// disk byte for byte, the file is a byte-exact prefix of an in-memory run of the same script, a
// writable load repairs an open turn durably (a second load finds nothing to repair), verifyLog
// is clean, and a resumed agent (invariants on) completes one more turn that verifies too.
// A trial is one killed session; one child runs a batch of them (crash-kill.ts), checks are in
// crash-trial.ts.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mulberry32 } from "../src/emulator/index.js";
import { type BatchSession, killBatch } from "./crash-kill.js";
import { checkKilledSession, referenceRun } from "./crash-trial.js";
import { crashScript } from "./fixtures/crash-session.js";
import { OutcomeCounter, type ReliabilitySuite, type SuiteResult } from "./suite.js";
import { runTrials } from "./trial-pool.js";

/** Sessions per child: a tsx child that loads the loop costs ~2–3 s of CPU to start. */
const BATCH = 5;
/** Children alive at once (the box has two cores). */
const CONCURRENCY = 2;

const trialSeed = (seed: number, trial: number): number => (seed ^ Math.imul(trial + 1, 0x9e3779b1)) >>> 0;

type Outcome = { readonly kinds: string[] } | { readonly failure: string };

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Runs trials [first, first + size) in one child and checks each killed session. */
async function runBatch(seed: number, first: number, size: number): Promise<Outcome[]> {
  const random = mulberry32(trialSeed(seed, first) ^ 0xc0ffee);
  const trials = Array.from({ length: size }, (_, i) => ({ index: first + i, seed: trialSeed(seed, first + i) }));
  const scripts = trials.map((t) => crashScript(t.seed));
  const references = await Promise.all(scripts.map(referenceRun));
  const roots = await Promise.all(trials.map(() => mkdtemp(join(tmpdir(), "keelson-crash-"))));
  try {
    const sessions: BatchSession[] = trials.map((t, i) => ({
      seed: t.seed,
      root: roots[i]!,
      calls: Math.floor(random() * (scripts[i]!.replies.length + 1)),
    }));
    const delayMs = random() < 0.3 ? 0 : Math.floor(random() * 10);
    let reports: Awaited<ReturnType<typeof killBatch>>;
    try {
      reports = await killBatch(sessions, delayMs);
    } catch (error) {
      return trials.map((t) => ({ failure: `trial ${t.index} (seed ${t.seed}): ${describe(error)}` }));
    }
    const outcomes: Outcome[] = [];
    for (const [i, t] of trials.entries()) {
      try {
        const kinds = await checkKilledSession({
          script: scripts[i]!,
          reference: references[i]!,
          root: roots[i]!,
          report: reports[i]!,
          random: mulberry32(t.seed ^ 0x7042),
        });
        outcomes.push({ kinds });
      } catch (error) {
        outcomes.push({
          failure: `trial ${t.index} (seed ${t.seed}, killed ${delayMs} ms into model call ${sessions[i]!.calls}): ${describe(error)}`,
        });
      }
    }
    return outcomes;
  } finally {
    await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
  }
}

const suite: ReliabilitySuite = {
  name: "crash",
  checks: "SIGKILL writers at random points: reported-durable bytes survive, repair is durable, resume verifies",
  fullTrials: 200,
  fastTrials: 20,
  async run({ trials, seed, log }): Promise<SuiteResult> {
    const started = performance.now();
    const counts = new OutcomeCounter();
    const failures: string[] = [];
    let checked = 0;
    const batches = await runTrials(Math.ceil(trials / BATCH), CONCURRENCY, async (b) => {
      const outcomes = await runBatch(seed, b * BATCH, Math.min(BATCH, trials - b * BATCH));
      checked += outcomes.length;
      if (checked % 40 === 0 || checked === trials) log?.(`${checked}/${trials} killed sessions checked`);
      return outcomes;
    });
    for (const outcome of batches.flat()) {
      if ("failure" in outcome) failures.push(outcome.failure);
      else for (const kind of outcome.kinds) counts.add(kind);
    }
    return {
      suite: suite.name,
      trials,
      passed: trials - failures.length,
      failures,
      counts: counts.toJSON(),
      ms: performance.now() - started,
    };
  },
};

export default suite;
