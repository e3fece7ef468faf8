// W2S turns over stored sessions (issue #13): each timed turn obtains a runnable agent over a
// prepared session of H messages — as a server handling many sessions does — then runs one
// 20-step tool turn (19 calls to a no-op tool, then a final text) on a zero-latency scripted
// model, then releases the agent. W2 reuses one live agent and so never bills the cost of getting
// it; this workload does. Rows: pi-agent-core's `Agent` (new per turn) and `agentLoop`, the AI SDK's
// `generateText`, Keelson in memory (`forkSession` + `createAgent`), and Keelson over the JSONL
// store (`resumeAgent` of a stored copy, `forkAgent` of a stored parent), for text-only and
// tool-heavy histories of 100, 1k and 10k messages. Each row is a fresh child process
// (bench/w2s/worker.ts). Figures: median CPU and wall ms per step, peak RSS, ratios to pi's
// `Agent`, flatness (10k ÷ 1k) and JSONL ÷ in memory, with the issue's goals marked met/missed.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { num, ratio } from "./table.js";
import { peerVersions } from "./w2-loop.js";
import type { RunnerName } from "./w2s/harness.js";
import { type HistoryShape, SHAPES } from "./w2s/history.js";
import type { W2sWorkerConfig, W2sWorkerResult } from "./w2s/worker.js";
import { KEELSON_FROM_DIST, type WorkloadResult } from "./workload.js";

const HISTORIES = [100, 1_000, 10_000];
const ORDER: readonly RunnerName[] = [
  "pi-agent-core Agent",
  "pi agentLoop",
  "ai-sdk generateText",
  "keelson in memory",
  "keelson+jsonl resume",
  "keelson+jsonl resume, turn durability",
  "keelson+jsonl fork",
];
const BASELINE: RunnerName = "pi-agent-core Agent";
const IN_MEMORY: RunnerName = "keelson in memory";
const JSONL: readonly RunnerName[] = ["keelson+jsonl resume", "keelson+jsonl fork"];
/** JSONL rows shown with their ratio to in memory; the turn-durability row has no goal of its own. */
const STORED: readonly RunnerName[] = [...JSONL, "keelson+jsonl resume, turn durability"];
export const W2S_STEPS = 20;
/** Untimed turns (short histories get more: their turns are too short to warm the JIT in a few). */
const warmupAt = (messages: number): number => (messages <= 1_000 ? 10 : 5);
const TIMED = 25;

/** The issue's goals. */
const GOAL = { cpuVsPi: 2, flat: 1.5, jsonlVsMemory: 3, rssVsPi: 1.2 } as const;

const root = join(import.meta.dirname, "..");
const run = promisify(execFile);

async function spawnWorker(config: W2sWorkerConfig): Promise<W2sWorkerResult> {
  const { stdout } = await run(
    process.execPath,
    ["--expose-gc", ...KEELSON_FROM_DIST, join(import.meta.dirname, "w2s", "worker.ts"), JSON.stringify(config)],
    { cwd: root, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as W2sWorkerResult;
}

const verdict = (value: number, goal: number): string => (value <= goal ? "met" : "missed");
const times = (n: number): string => `${n.toFixed(2)}×`;

export async function runW2S(): Promise<WorkloadResult> {
  const results: W2sWorkerResult[] = [];
  for (const shape of SHAPES) {
    for (const messages of HISTORIES) {
      for (const runner of ORDER) {
        const r = await spawnWorker({
          runner,
          shape,
          messages,
          steps: W2S_STEPS,
          warmup: warmupAt(messages),
          timed: TIMED,
        });
        process.stderr.write(
          `  W2S ${shape.padEnd(5)} ${String(messages).padStart(5)} ${runner.padEnd(38)} ${num(r.cpuMsPerStep).padStart(6)} CPU ms/step\n`,
        );
        results.push(r);
      }
    }
  }
  const at = (runner: RunnerName, shape: HistoryShape, messages: number): W2sWorkerResult =>
    results.find((r) => r.runner === runner && r.shape === shape && r.messages === messages)!;
  const flat = (runner: RunnerName, shape: HistoryShape): number =>
    at(runner, shape, 10_000).cpuMsPerStep / at(runner, shape, 1_000).cpuMsPerStep;
  const vsPi = (r: W2sWorkerResult): number => r.cpuMsPerStep / at(BASELINE, r.shape, r.messages).cpuMsPerStep;
  const rssVsPi = (r: W2sWorkerResult): number => r.peakRssMb / at(BASELINE, r.shape, r.messages).peakRssMb;
  const vsMemory = (r: W2sWorkerResult): number => r.cpuMsPerStep / at(IN_MEMORY, r.shape, r.messages).cpuMsPerStep;

  const goals = (r: W2sWorkerResult): string => {
    const runner = r.runner as RunnerName;
    if (runner === IN_MEMORY) {
      const marks = [`≤${GOAL.cpuVsPi}× pi ${verdict(vsPi(r), GOAL.cpuVsPi)}`];
      if (r.messages === 10_000)
        marks.push(`flat ${verdict(flat(runner, r.shape), GOAL.flat)}`, `RSS ${verdict(rssVsPi(r), GOAL.rssVsPi)}`);
      return marks.join(", ");
    }
    if (JSONL.includes(runner)) return `≤${GOAL.jsonlVsMemory}× mem ${verdict(vsMemory(r), GOAL.jsonlVsMemory)}`;
    return "";
  };
  const rows = results.map((r) => {
    const base = at(BASELINE, r.shape, r.messages);
    const runner = r.runner as RunnerName;
    return [
      r.shape,
      String(r.messages),
      r.runner,
      r.cpuMsPerStep,
      runner === BASELINE ? "" : ratio(r.cpuMsPerStep, base.cpuMsPerStep),
      r.wallMsPerStep,
      runner === BASELINE ? "" : ratio(r.wallMsPerStep, base.wallMsPerStep),
      r.peakRssMb,
      runner === BASELINE ? "" : ratio(r.peakRssMb, base.peakRssMb),
      r.messages === 10_000 ? num(flat(runner, r.shape)) : "",
      STORED.includes(runner) ? times(vsMemory(r)) : "",
      goals(r),
    ];
  });

  const perShape = (f: (shape: HistoryShape) => string): string => SHAPES.map((s) => `${s}: ${f(s)}`).join("; ");
  const goalCpu = perShape((s) =>
    HISTORIES.map((m) => {
      const v = vsPi(at(IN_MEMORY, s, m));
      return `${m} ${times(v)} ${verdict(v, GOAL.cpuVsPi)}`;
    }).join(", "),
  );
  const goalFlat = perShape((s) => `${num(flat(IN_MEMORY, s))} ${verdict(flat(IN_MEMORY, s), GOAL.flat)}`);
  const goalJsonl = JSONL.map(
    (j) =>
      `${j.replace("keelson+jsonl ", "")} — ${perShape((s) =>
        HISTORIES.map((m) => {
          const v = vsMemory(at(j, s, m));
          return `${m} ${times(v)} ${verdict(v, GOAL.jsonlVsMemory)}`;
        }).join(", "),
      )}`,
  ).join(" | ");
  const goalRss = perShape((s) => {
    const v = rssVsPi(at(IN_MEMORY, s, 10_000));
    return `${times(v)} ${verdict(v, GOAL.rssVsPi)}`;
  });
  const flatAll = perShape((s) => ORDER.map((r) => `${r} ${num(flat(r, s))}`).join(", "));
  const versions = Object.entries(peerVersions())
    .map(([n, v]) => `${n}@${v}`)
    .join(", ");
  return {
    id: "W2S",
    table: {
      title: `W2S turns over stored sessions — per timed turn: obtain an agent over a prepared session of H messages, one ${W2S_STEPS}-step tool turn, release (zero-latency scripted model; median of ${TIMED} turns; fresh process per row)`,
      columns: [
        "history",
        "H",
        "runner",
        "CPU ms/step",
        "÷ pi Agent",
        "wall ms/step",
        "÷ pi Agent",
        "peak RSS MB",
        "÷ pi Agent",
        "10k÷1k",
        "÷ in memory",
        "goals",
      ],
      rows,
      notes: [
        "÷ pi Agent = that row ÷ pi-agent-core Agent, same history shape and H (CPU, wall, peak RSS); 10k÷1k = CPU per step at 10k ÷ at 1k (flat ⇒ ≈ 1); ÷ in memory = Keelson + JSONL CPU ÷ Keelson in memory, same shape and H",
        `goal Keelson in memory CPU ≤ ${GOAL.cpuVsPi}× pi Agent at each H — ${goalCpu}`,
        `goal Keelson in memory 10k÷1k ≤ ${GOAL.flat} — ${goalFlat}`,
        `goal Keelson + JSONL CPU ≤ ${GOAL.jsonlVsMemory}× in memory — ${goalJsonl}`,
        `goal Keelson in memory peak RSS at 10k ≤ ${GOAL.rssVsPi}× pi Agent — ${goalRss}`,
        `flatness, every row — ${flatAll}`,
        `per row: ${warmupAt(100)} untimed warm-up turns at H ≤ 1k, ${warmupAt(10_000)} at 10k, then ${TIMED} timed turns at every H, each over its own prepared session of exactly H messages (never a grown one); every turn checked to make exactly ${W2S_STEPS} model calls and end at H + ${2 * W2S_STEPS} messages`,
        "prepared sessions: peers and Keelson in memory share one prepared history per process (pi's Agent and agentLoop copy the array; generateText gets [...history, prompt]; Keelson forks it); resume has one stored copy per turn, fork one stored parent; the JSONL store makes each finished step durable (durability 'step') and dispose flushes and releases",
        `shapes: text = turns of user + assistant text; tools = turns of user, 4 × (assistant text + tool call, tool result), final text (80% tool messages). pi agentLoop's convertToLlm is the identity. peers: ${versions}`,
      ],
    },
    data: {
      steps: W2S_STEPS,
      warmup: { upTo1k: warmupAt(1_000), at10k: warmupAt(10_000) },
      timed: TIMED,
      goals: GOAL,
      versions: peerVersions(),
      results,
    },
  };
}
