// Profile of the "agent per turn over a prepared session" path (issue #13): a server obtains an
// agent over a stored session for every turn. Each timed turn is
//   forkSession(parent) + createAgent({ session: child }) + send   (mode "fork", the default)
// or, with a JSONL store, resumeAgent / forkAgent over a stored session (modes "resume",
// "fork-store"), then one 20-step tool turn on a zero-latency ScriptedProvider (the W2 script).
// Prints median and best process CPU ms per step (user + system) at H = 100, 1k and 10k history
// messages, and the 10k÷1k ratio.
//
//   node --expose-gc --import tsx bench/profile-fork.ts [fork|resume|fork-store] [H...]
//   PROFILE_FORK_CPUPROF=/tmp/fork-1k.cpuprofile node --expose-gc --import tsx bench/profile-fork.ts fork 1000
//   node --import tsx bench/profile-fork.ts --summarize /tmp/fork-1k.cpuprofile
// With PROFILE_FORK_CPUPROF set, the timed turns (only: not the imports, nor building the
// history) are CPU-profiled through node:inspector and the profile written there (in resume
// mode that includes each turn's untimed re-creation of the stored copy). `--summarize`
// prints self time by file (and the top functions) of a V8 CPU profile. PROFILE_FORK_ALL=1
// prints every timed turn's figure.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { ScriptedProvider } from "../src/llm/core.js";
import { type Agent, createAgent, forkAgent, resumeAgent } from "../src/loop/index.js";
import { forkSession, type Session } from "../src/session/index.js";
import { JsonlSessionStore } from "../src/store/index.js";
import { defineTool } from "../src/tools/index.js";
import { loopHistorySession } from "./logs.js";
import { gc } from "./measure.js";
import { FINAL_TEXT, LoopScript, STEP_TEXT, SYSTEM, TOOL } from "./w2/script.js";
import { startTurnProfiler, type TurnProfiler } from "./w2s/profile.js";

const STEPS = 20;
type Mode = "fork" | "resume" | "fork-store";

const noop = defineTool({
  name: TOOL,
  description: "does nothing",
  input: z.object({ n: z.number() }),
  readOnly: true,
  execute: () => "ok",
});

function scriptedProvider(script: LoopScript): ScriptedProvider {
  return new ScriptedProvider([], {
    record: false,
    fallback: () => {
      const r = script.next();
      return r.kind === "final"
        ? { text: FINAL_TEXT }
        : { text: STEP_TEXT, toolCalls: [{ name: TOOL, arguments: { n: r.n } }] };
    },
  });
}

const agentOptions = (provider: ScriptedProvider) =>
  ({ provider, model: "scripted:bench", tools: [noop], system: SYSTEM, invariants: false, maxSteps: 1000 }) as const;

interface Prepared {
  /** Untimed set-up before a turn (resume: a fresh stored copy of the parent, so H stays put). */
  before(): Promise<void>;
  /** Obtains an agent over the prepared session (the part a server pays per turn). */
  agent(provider: ScriptedProvider): Promise<Agent>;
  done(): Promise<void>;
}

async function prepare(mode: Mode, messages: number): Promise<Prepared> {
  const parent: Session = loopHistorySession(messages, `profile-${messages}`);
  if (mode === "fork") {
    return {
      before: async () => undefined,
      agent: async (provider) => createAgent({ ...agentOptions(provider), session: forkSession(parent) }),
      done: async () => undefined,
    };
  }
  const root = await mkdtemp(join(tmpdir(), "keelson-profile-"));
  const store = new JsonlSessionStore({ root });
  let id = parent.id;
  let copies = 0;
  await store.create(parent.header, parent.events);
  await store.release(id);
  return {
    async before() {
      if (mode !== "resume") return;
      // Each resumed turn appends to the stored session: resume a fresh copy so H stays put.
      id = `${parent.id}-${++copies}`;
      await store.create({ ...parent.header, id }, parent.events);
      await store.release(id);
    },
    agent: (provider) =>
      mode === "resume" ? resumeAgent(store, id, agentOptions(provider)) : forkAgent(store, id, agentOptions(provider)),
    async done() {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** One timed turn: obtain the agent, send, dispose. Returns CPU ms per step. */
async function turn(prepared: Prepared, messages: number): Promise<number> {
  const script = new LoopScript();
  const provider = scriptedProvider(script);
  script.arm(STEPS);
  await prepared.before();
  const c0 = process.cpuUsage();
  const agent = await prepared.agent(provider);
  const outcome = await agent.send("go");
  await agent.dispose();
  const c = process.cpuUsage(c0);
  if (outcome.reason.kind !== "completed") throw new Error(`turn ended ${JSON.stringify(outcome.reason)}`);
  if (script.done() !== STEPS) throw new Error("the turn did not run the whole script");
  if (agent.session.deriveMessages().length < messages) throw new Error("history lost");
  return (c.user + c.system) / 1000 / STEPS;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

async function row(mode: Mode, messages: number): Promise<{ median: number; best: number; turns: number }> {
  const prepared = await prepare(mode, messages);
  try {
    // Fewer turns at 10k: each is tens of ms; enough for a stable median.
    const turns = messages >= 10_000 ? 60 : messages >= 1_000 ? 200 : 300;
    for (let i = 0; i < Math.min(20, turns); i++) await turn(prepared, messages); // warm-up
    gc();
    const profiler = await startProfile();
    const cpu: number[] = [];
    for (let i = 0; i < turns; i++) cpu.push(await turn(prepared, messages));
    await profiler?.stop();
    if (process.env.PROFILE_FORK_ALL === "1") console.log(cpu.map((x) => x.toFixed(3)).join(" "));
    return { median: median(cpu), best: Math.min(...cpu), turns };
  } finally {
    await prepared.done();
  }
}

/** Starts the inspector's CPU profiler when PROFILE_FORK_CPUPROF names an output file. */
async function startProfile(): Promise<TurnProfiler | undefined> {
  const out = process.env.PROFILE_FORK_CPUPROF;
  return out === undefined || out === "" ? undefined : startTurnProfiler(out);
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
}

/** Self time by file and the top self-time functions of a `.cpuprofile`. */
async function summarize(file: string): Promise<void> {
  const profile = JSON.parse(await readFile(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byFile = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const id of profile.samples) {
    const frame = byId.get(id)!.callFrame;
    const where = frame.url === "" ? `(${frame.functionName || "native"})` : frame.url.replace(/^.*\/main\//, "");
    byFile.set(where, (byFile.get(where) ?? 0) + 1);
    const fn = `${frame.functionName || "(anonymous)"} ${where}:${frame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + 1);
  }
  const total = profile.samples.length;
  const print = (title: string, m: Map<string, number>, n: number): void => {
    console.log(`\n${title} (${total} samples)`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n))
      console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  };
  print("self time by file", byFile, 25);
  print("self time by function", byFunction, 25);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === "--summarize") return summarize(args[1]!);
  const mode = (["fork", "resume", "fork-store"].includes(args[0] ?? "") ? args.shift() : "fork") as Mode;
  const histories = args.length > 0 ? args.map(Number) : [100, 1_000, 10_000];
  const results = new Map<number, number>();
  console.log(`mode ${mode}: CPU ms per step (${STEPS}-step turn, agent obtained per turn)`);
  for (const messages of histories) {
    const r = await row(mode, messages);
    results.set(messages, r.median);
    console.log(
      `H=${String(messages).padStart(6)}  median ${r.median.toFixed(3)}  best ${r.best.toFixed(3)}  (${r.turns} turns)`,
    );
  }
  const k1 = results.get(1_000);
  const k10 = results.get(10_000);
  if (k1 !== undefined && k10 !== undefined) console.log(`10k÷1k ${(k10 / k1).toFixed(1)}`);
  console.log(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
}

await main();
