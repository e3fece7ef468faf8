// W2 loop overhead: the same N-step tool loop (N-1 calls to a no-op tool, then a final text) on a
// zero-latency scripted model, from histories of 100, 1k and 10k messages, for Keelson (no store,
// and with the JSONL store) and its peers on the same script — Vercel AI SDK's generateText and
// streamText multi-step loops, pi-agent-core's Agent — plus the naive baseline (plain array, whole
// request JSON.stringify'd per call). Each configuration runs in a fresh child process
// (bench/w2/worker.ts) so its peak RSS is its own. Figures: process CPU ms per step (user +
// system, all threads — the headline: it does not count time spent waiting for a busy box),
// wall ms per step, peak RSS, and Keelson (no store) ÷ peer for CPU and RSS.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { num, ratio } from "./table.js";
import type { HarnessName } from "./w2/harness.js";
import type { WorkerConfig, WorkerResult } from "./w2/worker.js";
import { firstByteLatency } from "./w2/first-byte.js";
import { firstEventLatency } from "./w2/first-event.js";
import { KEELSON_FROM_DIST, type WorkloadResult } from "./workload.js";

const HISTORIES = [100, 1_000, 10_000];
const ORDER: readonly HarnessName[] = [
  "keelson",
  "keelson+jsonl",
  "keelson stream()",
  "ai-sdk generateText",
  "ai-sdk streamText",
  "pi-agent-core",
  "naive stringify",
];
export const W2_STEPS = 200;
const WARMUP = 300;
const FIRST_TURN = 10;
const REPEATS = 3;
/** Steps of the timed turn (and of the warm-up) in the stream ÷ send pair. */
const RATIO_STEPS = 2_000;
/**
 * Events a drained `agent.stream()` yields per step of the W2 script (a text, then a tool call):
 * step-start, text-start, two text deltas, text-end, tool-call-start, tool-call-delta,
 * tool-call-end, assistant-message, tool-call-ready, tool-result, step-end.
 */
const EVENTS_PER_STEP = 12;

const root = join(import.meta.dirname, "..");
const run = promisify(execFile);

/** Exact installed versions of the peers, read from their package.json. */
export function peerVersions(): Record<string, string> {
  const version = (name: string): string =>
    (JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  return Object.fromEntries(
    ["ai", "@ai-sdk/provider", "@mariozechner/pi-agent-core", "@mariozechner/pi-ai"].map((n) => [n, version(n)]),
  );
}

async function spawnWorker(config: WorkerConfig): Promise<WorkerResult> {
  const { stdout } = await run(
    process.execPath,
    ["--expose-gc", ...KEELSON_FROM_DIST, join(import.meta.dirname, "w2", "worker.ts"), JSON.stringify(config)],
    {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const line = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(line) as WorkerResult;
}

/** The bare iterator protocol's CPU per step for EVENTS_PER_STEP events, in a fresh process (bench/w2/protocol-floor.ts). */
async function protocolFloor(): Promise<number> {
  const { stdout } = await run(
    process.execPath,
    [
      "--expose-gc",
      ...KEELSON_FROM_DIST,
      join(import.meta.dirname, "w2", "protocol-floor.ts"),
      String(EVENTS_PER_STEP),
    ],
    { cwd: root },
  );
  return (JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as { usPerStep: number }).usPerStep;
}

/**
 * `agent.stream()` drained ÷ `agent.send()`, CPU per step, per history: the difference is a few
 * percent of a ~0.15 ms step, below the noise of the 200-step rows (a JIT warm-up of 300 steps
 * leaves either path still compiling), so this pair runs longer turns, alternating send and
 * stream processes twice, and compares each path's best.
 */
export async function streamOverSend(): Promise<{ messages: number; ratio: number }[]> {
  const out: { messages: number; ratio: number }[] = [];
  for (const messages of HISTORIES) {
    const best = { keelson: Number.POSITIVE_INFINITY, "keelson stream()": Number.POSITIVE_INFINITY };
    for (let round = 0; round < 2; round++)
      for (const harness of ["keelson", "keelson stream()"] as const) {
        const r = await spawnWorker({
          harness,
          messages,
          steps: RATIO_STEPS,
          warmup: RATIO_STEPS,
          firstTurn: FIRST_TURN,
          repeats: REPEATS,
        });
        best[harness] = Math.min(best[harness], r.cpuMsPerStep);
      }
    out.push({ messages, ratio: best["keelson stream()"] / best.keelson });
  }
  return out;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mean = (xs: readonly number[]): number => xs.reduce((sum, x) => sum + x, 0) / xs.length;

/** One way of timing settled turns: how many per process, which are timed, and what happens between them. */
interface SettledProtocol {
  readonly turns: number;
  /** The first timed turn (1-based); the earlier ones are the process's warm-up. */
  readonly firstTimed: number;
  readonly processesPerPath: number;
  /** A forced full GC before each turn (bench/w2/turns.ts), or the GC the turns cause themselves. */
  readonly forcedGc: boolean;
  /** A process's figure from its timed turns' CPU per step. */
  readonly summary: (perTurn: readonly number[]) => number;
}

/**
 * The goal's protocol (#22): a process that keeps running turns, as a server does — GC as the
 * turns cause it (scavenges and major GCs land in the turns that cause them, and the mean counts
 * them all), twenty timed turns after four of warm-up, seven processes per path alternating (a major GC
 * of the 10k-message heap lands in one turn of some processes and not others: fewer moved the
 * ratio by ±0.1 there).
 */
export const STEADY: SettledProtocol = {
  turns: 24,
  firstTimed: 5,
  processesPerPath: 7,
  forcedGc: false,
  summary: mean,
};

/**
 * The first settled protocol, kept beside it: a forced full GC before each of ten turns, the
 * median of turns 5–10, three processes per path. A full GC that finds no instance of a per-turn
 * class alive drops its hidden classes and the optimized code built on them, so each turn starts
 * by recompiling — it roughly doubles both paths' CPU per step (docs/benchmarks.md, W2).
 */
export const AFTER_FULL_GC: SettledProtocol = {
  turns: 10,
  firstTimed: 5,
  processesPerPath: 3,
  forcedGc: true,
  summary: median,
};

/** One settled protocol's figures at one history: each path's median CPU ms per step, and the ratios. */
export interface SettledPair {
  readonly messages: number;
  /** stream ÷ send. */
  readonly ratio: number;
  readonly sendMs: number;
  readonly streamMs: number;
  /** send() with a bare iterator tapped on the loop (bench/w2/keelson.ts, `bareTap`), when measured. */
  readonly bareTapMs?: number;
}

type SettledPath = "keelson" | "keelson stream()" | "keelson send()+bare tap";

/**
 * The ratio over settled turns (#22): each process runs `turns` 2,000-step turns on one agent
 * (bench/w2/turns.ts) — the JIT is done with a new turn's objects by the fifth (docs/benchmarks.md)
 * — the paths' processes alternating, each path's figure the median of its processes'. The pair
 * above times turns 3, 5 and 7, still inside the warm-up. `withBareTap` adds a third path: send()
 * with the same events pushed through a bare async iterator to a consumer — the iterator
 * protocol's cost inside the loop, what no stream over these events can go below.
 */
export async function streamOverSendSettled(
  protocol: SettledProtocol = STEADY,
  withBareTap = false,
): Promise<SettledPair[]> {
  const out: SettledPair[] = [];
  const paths: readonly SettledPath[] = withBareTap
    ? ["keelson", "keelson stream()", "keelson send()+bare tap"]
    : ["keelson", "keelson stream()"];
  for (const messages of HISTORIES) {
    const figures = new Map<SettledPath, number[]>(paths.map((path) => [path, []]));
    for (let round = 0; round < protocol.processesPerPath; round++)
      for (const harness of paths) {
        const config = { harness, messages, steps: RATIO_STEPS, turns: protocol.turns, gc: protocol.forcedGc };
        const { stdout } = await run(
          process.execPath,
          ["--expose-gc", ...KEELSON_FROM_DIST, join(import.meta.dirname, "w2", "turns.ts"), JSON.stringify(config)],
          { cwd: root, maxBuffer: 16 * 1024 * 1024 },
        );
        const { cpuMsPerStep } = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as { cpuMsPerStep: number[] };
        figures.get(harness)!.push(protocol.summary(cpuMsPerStep.slice(protocol.firstTimed - 1)));
      }
    const sendMs = median(figures.get("keelson")!);
    const streamMs = median(figures.get("keelson stream()")!);
    const bare = figures.get("keelson send()+bare tap");
    out.push({ messages, ratio: streamMs / sendMs, sendMs, streamMs, ...(bare ? { bareTapMs: median(bare) } : {}) });
  }
  return out;
}

export async function runW2(): Promise<WorkloadResult> {
  const results: WorkerResult[] = [];
  for (const messages of HISTORIES) {
    for (const harness of ORDER) {
      const r = await spawnWorker({
        harness,
        messages,
        steps: W2_STEPS,
        warmup: WARMUP,
        firstTurn: FIRST_TURN,
        repeats: REPEATS,
      });
      process.stderr.write(
        `  W2 ${String(messages).padStart(5)} ${harness.padEnd(20)} ${num(r.cpuMsPerStep).padStart(6)} CPU ms/step\n`,
      );
      results.push(r);
    }
  }
  const at = (harness: HarnessName, messages: number): WorkerResult =>
    results.find((r) => r.harness === harness && r.messages === messages)!;
  const rows = results.map((r) => {
    const k = at("keelson", r.messages);
    const peer = !r.harness.startsWith("keelson");
    return [
      r.harness,
      String(r.messages),
      r.cpuMsPerStep,
      peer ? ratio(k.cpuMsPerStep, r.cpuMsPerStep) : "",
      r.wallMsPerStep,
      peer ? ratio(k.wallMsPerStep, r.wallMsPerStep) : "",
      r.peakRssMb,
      peer ? ratio(k.peakRssMb, r.peakRssMb) : "",
      r.rssAfterImportMb,
    ];
  });
  const flat = ORDER.map((h) => `${h} ${num(at(h, 10_000).cpuMsPerStep / at(h, 1_000).cpuMsPerStep)}`).join(", ");
  const signed = (n: number): string => (n >= 0 ? `+${num(n)}` : `−${num(-n)}`);
  const jsonl = HISTORIES.map(
    (m) => `${m}: ${signed(at("keelson+jsonl", m).cpuMsPerStep - at("keelson", m).cpuMsPerStep)} ms`,
  ).join(", ");
  const streamed = (await streamOverSend()).map((r) => `${r.messages}: ${num(r.ratio)}×`).join(", ");
  const settledFigures = (rs: readonly SettledPair[]): string =>
    rs.map((r) => `${r.messages}: ${num(r.ratio)}× (${num(r.streamMs)} ÷ ${num(r.sendMs)} ms)`).join(", ");
  const steadyRows = await streamOverSendSettled(STEADY, true);
  const steady = settledFigures(steadyRows);
  const afterFullGc = settledFigures(await streamOverSendSettled(AFTER_FULL_GC));
  const latency = await firstEventLatency();
  const overWire = await firstByteLatency();
  const floor = await protocolFloor();
  const sendAt1k = steadyRows.find((r) => r.messages === 1_000)!.sendMs * 1000;
  const inLoop = steadyRows
    .map(
      (r) =>
        `${r.messages}: ${num(r.bareTapMs! / r.sendMs)}× of send() (${num(r.bareTapMs!)} ms), stream() ${num(r.streamMs / r.bareTapMs!)}× of it`,
    )
    .join(", ");
  const versions = Object.entries(peerVersions())
    .map(([n, v]) => `${n}@${v}`)
    .join(", ");
  return {
    id: "W2",
    table: {
      title: `W2 loop overhead — one ${W2_STEPS}-step tool loop on a zero-latency scripted model (best of ${REPEATS}, fresh process per row)`,
      columns: [
        "harness",
        "history",
        "CPU ms/step",
        "keelson ÷",
        "wall ms/step",
        "keelson ÷",
        "peak RSS MB",
        "keelson ÷",
        "RSS at import MB",
      ],
      rows,
      notes: [
        "keelson ÷ = Keelson (no store) ÷ that row, same history: below 1 means Keelson spends less",
        `flatness, CPU per step at 10k ÷ at 1k messages: ${flat} (flat ⇒ ≈ 1)`,
        `Keelson's JSONL store (write + fsync per turn end, amortized over the turn) changes CPU per step by ${jsonl} (within noise when small)`,
        `peers: ${versions}; peers have no store (Keelson's comparable row is "keelson")`,
        `agent.stream() drained ÷ agent.send(), CPU per step, ${RATIO_STEPS}-step turns after a ${RATIO_STEPS}-step warm-up, best of ${2 * REPEATS} each in alternating processes: ${streamed} (goal ≤ 1.1×)`,
        `the same, steady (the goal's protocol): per process ${STEADY.turns} ${RATIO_STEPS}-step turns on one agent, GC as the turns cause it, its figure the mean CPU per step of turns ${STEADY.firstTimed}–${STEADY.turns}; ${STEADY.processesPerPath} alternating processes per path, ratio of the medians: ${steady} (goal ≤ 1.1×)`,
        `the same after a forced full GC before each turn (a GC with no turn alive drops the loop's hidden classes; each turn recompiles): median of turns ${AFTER_FULL_GC.firstTimed}–${AFTER_FULL_GC.turns}, ${AFTER_FULL_GC.processesPerPath} processes per path: ${afterFullGc} (not the goal's protocol; reported)`,
        `the iterator protocol alone, same run: ${EVENTS_PER_STEP} events a step pushed through a bare async iterator (one parked promise each) to a \`for await\` consumer, no Keelson code, costs ${num(floor)} µs of CPU a step (least of five rounds, a fresh process) — ${num(1 + floor / sendAt1k)}× of send()'s steady step at 1k if it cost inside the loop what it costs alone`,
        `the iterator protocol inside the loop, same run and protocol as the steady pair: send() with the same events a step (the logged ones through the session's observer, the provider's block chunks through the llm/chunk hook) pushed through that bare iterator to a \`for await\` consumer, no feed and no mapping (bench/w2/keelson.ts, bareTap): ${inLoop} — the floor under any stream of these events; stream() ÷ it is Keelson's own share`,
        `provider's first chunk → first stream event out, in process: median ${num(latency.median)} ms, p99 ${num(latency.p99)} ms over ${latency.turns} turns (goal: median ≤ 1 ms)`,
        `over the wire: first byte of the answer's SSE body leaving a local HTTP server → first stream event out, through AnthropicProvider and the official SDK (loopback TCP and the SDK's parsing included): median ${num(overWire.median)} ms, p99 ${num(overWire.p99)} ms over ${overWire.turns} turns (goal: median ≤ 1 ms)`,
        `per process: a ${WARMUP}-step JIT warm-up turn on a throwaway 100-message history; per repeat: fresh history, an untimed ${FIRST_TURN}-step first turn, then the timed ${W2_STEPS}-step turn; every turn is checked to make exactly its model calls and grow the history by 2 per step`,
      ],
    },
    data: {
      steps: W2_STEPS,
      warmup: WARMUP,
      firstTurn: FIRST_TURN,
      repeats: REPEATS,
      versions: peerVersions(),
      results,
      firstEventLatency: latency,
      firstByteLatency: overWire,
      streamOverSendSteady: steadyRows,
      protocolFloorUsPerStep: floor,
    },
  };
}
