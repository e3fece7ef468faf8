// crash: child processes run seeded scripted sessions (createAgent + ScriptedProvider + tools,
// several turns with tool calls) on the JSONL store and are SIGKILLed at points drawn from the
// seed: half inside a model call (a random number of calls in, after a random short delay), half
// while a tool with side effects is executing (the tool announces itself and never returns).
// After each kill, per session: every event the child reported durable is on disk byte for
// byte, and so is every step it reported ended before the kill window; the file is a byte-exact
// prefix of an in-memory run of the same script; a killed tool's call and the assistant message
// that asked for it are on disk, and so is the call of every side effect that happened; a
// writable load repairs an open turn durably (an error result for an in-flight call, step/end,
// turn/end interrupted; a second load finds nothing to repair), verifyLog is clean, and a
// resumed agent (invariants on) completes one more turn that verifies too.
// A trial is one killed session; one child runs a batch of them (crash-kill.ts), checks are in
// crash-trial.ts.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mulberry32 } from "../src/emulator/index.js";
import { type BatchSession, killBatch } from "./crash-kill.js";
import { checkKilledSession, referenceRun } from "./crash-trial.js";
import { crashScript, sideEffectCalls } from "./fixtures/crash-session.js";
import { OutcomeCounter, type ReliabilitySuite, type SuiteResult } from "./suite.js";
import { runTrials } from "./trial-pool.js";

/** Sessions per child: a child that loads the loop costs about a second of CPU to start. */
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
  const sideDir = await mkdtemp(join(tmpdir(), "keelson-crash-effects-"));
  try {
    const sessions: BatchSession[] = trials.map((t, i) => {
      const script = scripts[i]!;
      const tools = sideEffectCalls(script);
      const base = { seed: t.seed, sessionId: script.sessionId, root: roots[i]! };
      // Half the kills land inside a side-effect tool: every model call granted, the n-th such tool blocks.
      if (random() < 0.5 && tools > 0)
        return { ...base, calls: script.replies.length, block: 1 + Math.floor(random() * tools) };
      return { ...base, calls: Math.floor(random() * (script.replies.length + 1)) };
    });
    const delayMs = random() < 0.3 ? 0 : Math.floor(random() * 10);
    let reports: Awaited<ReturnType<typeof killBatch>>;
    try {
      reports = await killBatch(sessions, delayMs, sideDir);
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
          effectsFile: join(sideDir, `${scripts[i]!.sessionId}.effects`),
          random: mulberry32(t.seed ^ 0x7042),
        });
        outcomes.push({ kinds });
      } catch (error) {
        const s = sessions[i]!;
        const where =
          s.block === undefined ? `${delayMs} ms into model call ${s.calls}` : `inside side-effect tool ${s.block}`;
        outcomes.push({ failure: `trial ${t.index} (seed ${t.seed}, killed ${where}): ${describe(error)}` });
      }
    }
    return outcomes;
  } finally {
    await Promise.all([...roots, sideDir].map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

const suite: ReliabilitySuite = {
  name: "crash",
  checks:
    "SIGKILL writers in model calls and inside side-effect tools: reported-durable bytes and a killed tool's call survive, repair is durable, resume verifies",
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
