// One W2S row in its own process, so its peak RSS is its own:
//   node --expose-gc --import tsx --import ./bench/keelson-from-dist.mjs bench/w2s/worker.ts '{"runner":"keelson in memory","shape":"text","messages":1000,"steps":20,"warmup":3,"timed":15}'
// The runner's factory prepares `warmup + timed` sessions of exactly `messages` messages
// (untimed; runners that fork share one parent). Then `warmup` untimed turns over the first
// ones (JIT warm-up), then `timed` turns over the rest, each: a forced GC, then the timed unit —
// obtain an agent over the prepared session, one `steps`-step turn, release (wall and process
// CPU: user + system, all threads). Every turn is checked to make exactly `steps` model calls
// and to end with `messages + 2 × steps` messages, so no timed turn starts from a grown
// history. Prints one JSON line (W2sWorkerResult) on stdout: medians per step. With
// `cpuProfile`, the timed turns are also CPU-profiled into that file (profile.ts), without the
// forced GC between them.
import { performance } from "node:perf_hooks";
import { gc } from "../measure.js";
import { LoopScript } from "../w2/script.js";
import { isRunnerName, RUNNERS } from "./harness.js";
import { type HistoryShape, SHAPES } from "./history.js";
import { startTurnProfiler, type TurnProfiler } from "./profile.js";

export interface W2sWorkerConfig {
  readonly runner: string;
  readonly shape: HistoryShape;
  readonly messages: number;
  readonly steps: number;
  /** Untimed turns before the timed ones, each over its own prepared session. */
  readonly warmup: number;
  readonly timed: number;
  /** Write a CPU profile of the timed turns here (the profiler slows them). */
  readonly cpuProfile?: string;
}

export interface W2sWorkerResult extends W2sWorkerConfig {
  /** Medians of the timed turns, per step. */
  readonly cpuMsPerStep: number;
  readonly wallMsPerStep: number;
  readonly cpuMsPerStepAll: readonly number[];
  readonly wallMsPerStepAll: readonly number[];
  /** Wall time of the untimed preparation (building the history, writing stored copies). */
  readonly prepareMs: number;
  /** RSS after preparation, after a forced GC. */
  readonly rssAfterPrepareMb: number;
  /** process.resourceUsage().maxRSS at the end: the row's peak. */
  readonly peakRssMb: number;
}

const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export async function runW2sWorker(config: W2sWorkerConfig): Promise<W2sWorkerResult> {
  if (!isRunnerName(config.runner)) throw new Error(`unknown W2S runner ${config.runner}`);
  if (!SHAPES.includes(config.shape)) throw new Error(`unknown history shape ${config.shape}`);
  if (config.timed < 1) throw new Error(`timed must be at least 1, got ${config.timed}`);
  const factory = await RUNNERS[config.runner]();
  const script = new LoopScript();
  const p0 = performance.now();
  const runner = await factory(
    { shape: config.shape, messages: config.messages, sessions: config.warmup + config.timed },
    script,
  );
  const prepareMs = performance.now() - p0;
  gc();
  const rssAfterPrepareMb = mb(process.memoryUsage().rss);
  const wall: number[] = [];
  const cpu: number[] = [];
  let profiler: TurnProfiler | undefined;
  try {
    for (let i = 0; i < config.warmup + config.timed; i++) {
      if (i === config.warmup && config.cpuProfile !== undefined) profiler = await startTurnProfiler(config.cpuProfile);
      script.arm(config.steps);
      if (profiler === undefined) gc(); // a forced full GC would swamp the profile
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const historyAfter = await runner.turn(i, `turn ${i}`);
      const t1 = performance.now();
      const c = process.cpuUsage(c0);
      const calls = script.done();
      const after = historyAfter();
      if (after !== config.messages + 2 * config.steps)
        throw new Error(
          `${config.runner}: ${calls} model calls, ${after} messages after the turn, expected ${config.messages + 2 * config.steps}`,
        );
      if (i < config.warmup) continue;
      wall.push((t1 - t0) / config.steps);
      cpu.push((c.user + c.system) / 1000 / config.steps);
    }
    await profiler?.stop();
  } finally {
    await runner.dispose();
  }
  return {
    ...config,
    cpuMsPerStep: median(cpu),
    wallMsPerStep: median(wall),
    cpuMsPerStepAll: cpu,
    wallMsPerStepAll: wall,
    prepareMs,
    rssAfterPrepareMb,
    peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runW2sWorker(JSON.parse(process.argv[2] ?? "{}") as W2sWorkerConfig);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
