// One W8 row in a fresh process (`bench/w8-host.ts` spawns it): S sessions on the in-process
// emulator, all streaming at once. Phase 1 opens every session with one turn (creation, not
// timed); phase 2 runs T more turns per session, every session's turns back to back and all
// sessions concurrently, and is measured: wall time, process CPU (and PostgreSQL's, for its
// rows), steps, the probe's event latencies. Then RSS with every session open, after a GC.
// Prints one JSON line.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { countTokens, EmulatorProvider, RuleBasedModel } from "../../src/emulator/index.js";
import type { AgentProfile } from "../../src/loop/index.js";
import { defineTool, jsonSchema } from "../../src/tools/index.js";
import { gc } from "../measure.js";
import { postgresCpuMs } from "../w6/workers.js";
import { LatencyProbe, percentile } from "./probe.js";
import { openRunner, type Runner, type W8RunnerName } from "./runners.js";

export interface W8WorkerConfig {
  readonly runner: W8RunnerName;
  readonly durability: "step" | "turn";
  readonly sessions: number;
  /** Measured turns per session (after the untimed first one). */
  readonly turns: number;
  /** Model latency per request (ms), so every session has a request in flight at once. */
  readonly latencyMs: number;
  readonly url?: string;
  readonly postmaster?: number;
}

export interface W8WorkerResult extends W8WorkerConfig {
  readonly measuredTurns: number;
  readonly steps: number;
  readonly seconds: number;
  readonly turnsPerSecond: number;
  readonly cpuMsPerStep: number;
  readonly postgresCpuMsPerStep?: number;
  readonly openSeconds: number;
  readonly rssMbBefore: number;
  readonly rssMbOpen: number;
  readonly rssKbPerSession: number;
  readonly heapKbPerSession: number;
  readonly latencyMs50: number;
  readonly latencyMs99: number;
  readonly latencySamples: number;
  /** From `turn/end` committed to the consumer receiving `turn-end` (after the turn's final flush). */
  readonly turnEndMs50: number;
  readonly turnEndMs99: number;
}

const note = defineTool({
  name: "note",
  description: "Keeps a note.",
  input: jsonSchema<{ text: string }>({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
  execute: ({ text }) => `noted: ${text}`,
});

/** One request per step: a tool call, then the answer after its result — two steps a turn. */
const promptOf = (id: string, turn: number): string => `call note {"text":"turn ${turn} of ${id}"}`;

async function runTurn(runner: Runner, probe: LatencyProbe, id: string, turn: number): Promise<number> {
  const stream = runner.turn(id, promptOf(id, turn));
  let steps = 0;
  for await (const event of stream) {
    probe.received(id, event);
    if (event.type === "step-end") steps++;
  }
  const outcome = await stream.outcome;
  if (outcome.reason.kind !== "completed") throw new Error(`${id} turn ${turn}: ${JSON.stringify(outcome.reason)}`);
  return steps;
}

const mb = (bytes: number): number => bytes / (1024 * 1024);

/** Runs one row in this process. */
export async function runW8Worker(config: W8WorkerConfig): Promise<W8WorkerResult> {
  countTokens("warm up"); // the tokenizer's tables load on first use
  const rules = new RuleBasedModel();
  const provider = new EmulatorProvider({
    model: async (request) => {
      await new Promise((done) => setTimeout(done, config.latencyMs));
      return rules.reply(request);
    },
  });
  const probe = new LatencyProbe();
  const profile: AgentProfile = {
    provider,
    model: "emulator:rule-based",
    system: "You are Keelson, a careful agent. Answer concisely.",
    tools: [note],
    plugins: [probe.plugin],
    options: { durability: config.durability, invariants: false },
  };
  const root = await mkdtemp(join(tmpdir(), "keelson-w8-"));
  const ids = Array.from({ length: config.sessions }, (_, i) => `w8-${i}`);
  try {
    gc();
    const rssBefore = process.memoryUsage().rss;
    const runner = openRunner({
      name: config.runner,
      profile,
      root,
      ...(config.url === undefined ? {} : { url: config.url }),
      sessions: config.sessions,
    });
    const o0 = performance.now();
    await Promise.all(
      ids.map(async (id) => {
        await runner.open?.(id);
        await runTurn(runner, probe, id, 0);
      }),
    );
    const openSeconds = (performance.now() - o0) / 1000;
    provider.requests.length = 0; // the emulator keeps every request: not the sessions' memory
    provider.usages.length = 0;
    probe.reset();
    gc();

    const pg0 = config.postmaster === undefined ? 0 : postgresCpuMs(config.postmaster);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const steps = await Promise.all(
      ids.map(async (id) => {
        let total = 0;
        for (let turn = 1; turn <= config.turns; turn++) total += await runTurn(runner, probe, id, turn);
        return total;
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(c0);
    const pgCpu = config.postmaster === undefined ? undefined : postgresCpuMs(config.postmaster) - pg0;
    const stepCount = steps.reduce((a, b) => a + b, 0);
    const latency = {
      p50: percentile(probe.samples, 50),
      p99: percentile(probe.samples, 99),
      samples: probe.samples.length,
      turnEndP50: percentile(probe.turnEnds, 50),
      turnEndP99: percentile(probe.turnEnds, 99),
    };

    provider.requests.length = 0;
    provider.usages.length = 0;
    probe.reset();
    gc();
    const memory = process.memoryUsage();
    const heapBaseline = memory.heapUsed; // (sessions open: compared with after close below)
    await runner.close();
    gc();
    const heapClosed = process.memoryUsage().heapUsed;
    const measuredTurns = config.sessions * config.turns;
    return {
      ...config,
      measuredTurns,
      steps: stepCount,
      seconds,
      turnsPerSecond: measuredTurns / seconds,
      cpuMsPerStep: (cpu.user + cpu.system) / 1000 / stepCount,
      ...(pgCpu === undefined ? {} : { postgresCpuMsPerStep: pgCpu / stepCount }),
      openSeconds,
      rssMbBefore: mb(rssBefore),
      rssMbOpen: mb(memory.rss),
      rssKbPerSession: (memory.rss - rssBefore) / 1024 / config.sessions,
      heapKbPerSession: (heapBaseline - heapClosed) / 1024 / config.sessions,
      latencyMs50: latency.p50,
      latencyMs99: latency.p99,
      latencySamples: latency.samples,
      turnEndMs50: latency.turnEndP50,
      turnEndMs99: latency.turnEndP99,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runW8Worker(JSON.parse(process.argv[2] ?? "{}") as W8WorkerConfig);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
