// Per-turn CPU of one W2 Keelson agent process (W2's settled stream ÷ send pairs run it): a warm-up
// turn on a throwaway 100-message agent, then successive turns on one agent over an H-message
// history — a forced full GC before each unless `"gc": false` — printing each turn's process CPU
// per step and a `TURN n` marker line before it — run it with
// `--trace-deopt` to count the deopts each turn of a process makes (docs/benchmarks.md, W2 pair):
//   node --expose-gc --import tsx --import ./bench/keelson-from-dist.mjs bench/w2/turns.ts \
//     '{"harness":"keelson stream()","messages":1000,"steps":2000,"turns":10}'
import { gc } from "../measure.js";
import { HARNESSES, isHarnessName } from "./harness.js";
import { LoopScript } from "./script.js";

const config = JSON.parse(process.argv[2] ?? "{}") as {
  harness?: string;
  messages?: number;
  steps?: number;
  turns?: number;
  warmup?: number;
  gc?: boolean;
};
const name = config.harness ?? "keelson";
if (!isHarnessName(name)) throw new Error(`unknown harness ${name}`);
const factory = await HARNESSES[name]();
const steps = config.steps ?? 2000;
const warm = new LoopScript();
const warmHarness = await factory(100, warm);
console.log("TURN warm-up");
warm.arm(config.warmup ?? steps);
await warmHarness.turn("warm up");
await warmHarness.dispose();
const script = new LoopScript();
const harness = await factory(config.messages ?? 1000, script);
const perTurn: number[] = [];
for (let t = 1; t <= (config.turns ?? 10); t++) {
  if (config.gc !== false) gc();
  console.log(`TURN ${t}`);
  script.arm(steps);
  const c0 = process.cpuUsage();
  await harness.turn(`turn ${t}`);
  const c = process.cpuUsage(c0);
  if (script.done() !== steps) throw new Error("the turn did not run the whole script");
  perTurn.push(Math.round(((c.user + c.system) / 1000 / steps) * 1000) / 1000);
}
await harness.dispose();
console.log(JSON.stringify({ harness: name, cpuMsPerStep: perTurn }));
