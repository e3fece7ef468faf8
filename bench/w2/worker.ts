// One W2 configuration in its own process, so its peak RSS is its own:
//   node --expose-gc --import tsx bench/w2/worker.ts '{"harness":"keelson","messages":1000,"steps":200,"warmup":300,"firstTurn":10,"repeats":3}'
// First a JIT warm-up: a throwaway harness over a 100-message history runs one `warmup`-step
// turn. Then per repeat: a fresh harness over a fresh `messages` history, an untimed first turn
// of `firstTurn` steps (an instance's first request, store creation), then the timed turn of
// `steps` steps (wall and process CPU: user + system, all threads). Checks every turn ran the
// whole script and grew the history by exactly 2 messages per step. Prints one JSON line
// (WorkerResult) on stdout.
import { performance } from "node:perf_hooks";
import { gc } from "../measure.js";
import { HARNESSES, isHarnessName, type LoopHarness } from "./harness.js";
import { LoopScript } from "./script.js";

export interface WorkerConfig {
  readonly harness: string;
  readonly messages: number;
  readonly steps: number;
  /** Steps of the JIT warm-up turn (on a throwaway 100-message harness). */
  readonly warmup: number;
  /** Steps of each fresh harness's untimed first turn. */
  readonly firstTurn: number;
  readonly repeats: number;
}

export interface WorkerResult extends WorkerConfig {
  /** Best of the repeats, per step. */
  readonly wallMsPerStep: number;
  readonly cpuMsPerStep: number;
  readonly wallMsPerStepAll: readonly number[];
  readonly cpuMsPerStepAll: readonly number[];
  /** Messages in the history when the timed turn started (first repeat). */
  readonly historyAtStart: number;
  /** RSS after imports, before any history was built. */
  readonly rssAfterImportMb: number;
  /** process.resourceUsage().maxRSS at the end: the configuration's peak. */
  readonly peakRssMb: number;
}

const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

export async function runWorker(config: WorkerConfig): Promise<WorkerResult> {
  if (!isHarnessName(config.harness)) throw new Error(`unknown harness ${config.harness}`);
  const factory = await HARNESSES[config.harness]();
  gc();
  const rssAfterImportMb = mb(process.memoryUsage().rss);
  const wall: number[] = [];
  const cpu: number[] = [];
  let historyAtStart = 0;
  const turn = async (harness: LoopHarness, script: LoopScript, prompt: string, steps: number): Promise<void> => {
    const before = harness.historyLength();
    script.arm(steps);
    await harness.turn(prompt);
    const calls = script.done();
    const grew = harness.historyLength() - before;
    if (calls !== steps || grew !== 2 * steps)
      throw new Error(`${config.harness}: ${calls} model calls, history +${grew}, expected ${steps} and +${2 * steps}`);
  };
  if (config.warmup > 0) {
    const script = new LoopScript();
    const harness = await factory(100, script);
    await turn(harness, script, "warm up", config.warmup);
    await harness.dispose();
  }
  for (let r = 0; r < config.repeats; r++) {
    const script = new LoopScript();
    const harness = await factory(config.messages, script);
    await turn(harness, script, "first turn", config.firstTurn);
    if (r === 0) historyAtStart = harness.historyLength();
    gc();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await turn(harness, script, "run the loop", config.steps);
    const t1 = performance.now();
    const c = process.cpuUsage(c0);
    wall.push((t1 - t0) / config.steps);
    cpu.push((c.user + c.system) / 1000 / config.steps);
    await harness.dispose();
  }
  return {
    ...config,
    wallMsPerStep: Math.min(...wall),
    cpuMsPerStep: Math.min(...cpu),
    wallMsPerStepAll: wall,
    cpuMsPerStepAll: cpu,
    historyAtStart,
    rssAfterImportMb,
    peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runWorker(JSON.parse(process.argv[2] ?? "{}") as WorkerConfig);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
