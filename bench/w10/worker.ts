// One side of a W10 pair in its own process: `verify` or `replay` of a recorded session, run
// `repeats` times (a gc before each), printing the best as one JSON line. Verify and replay
// each run in fresh processes so neither shapes the other's JIT and heap state (in one process,
// the replays' code paths made the verifies after them up to 1.7× slower than alone).
//   node --expose-gc --import tsx --import ./bench/keelson-from-dist.mjs bench/w10/worker.ts \
//     '{"shape":"small","dir":"/tmp/…","id":"…","what":"verify","repeats":3}'
import { reconstructRequests, verifyLog } from "../../src/reconstruct/index.js";
import { replaySession } from "../../src/replay/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";
import { bestOf } from "../measure.js";
import { appOptions, SHAPES } from "../w10-replay.js";

interface Config {
  readonly shape: string;
  readonly dir: string;
  readonly id: string;
  readonly what: "verify" | "replay";
  readonly repeats: number;
}

const config = JSON.parse(process.argv[2] ?? "{}") as Config;
const shape = SHAPES.find((s) => s.name === config.shape);
if (shape === undefined) throw new Error(`W10 worker: unknown shape ${config.shape}`);
const fresh = (): JsonlSessionStore => new JsonlSessionStore({ root: config.dir, cacheSessions: 0 });
let requests = 0;
const verify = async (): Promise<void> => {
  const { session } = await fresh().load(config.id, { readOnly: true });
  if (!verifyLog(session.events).ok) throw new Error("W10: the recorded log does not verify");
  requests = 0;
  for (const r of reconstructRequests(session.events)) {
    void r.request; // materialized, as `keelson verify` does
    requests++;
  }
};
const options = appOptions(shape);
const replay = async (): Promise<void> => {
  const report = await replaySession(fresh(), config.id, options);
  if (!report.identical) throw new Error(`W10: the replay of the ${shape.name} session is not identical`);
  requests = report.requests.replayed;
};
const timing = await bestOf(config.what === "verify" ? verify : replay, config.repeats);
process.stdout.write(`${JSON.stringify({ ms: timing.ms, cpuMs: timing.cpuMs, requests })}\n`);
