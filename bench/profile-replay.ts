// Profile of W10's replay (issue #27 §2): one W10 session shape recorded once, then verify and
// replay of it interleaved N times in one process (best of each, CPU ms), and optionally the
// replays alone CPU-profiled through node:inspector. Loads Keelson as W10 does (from dist/, so
// run `npm run build` first).
//
//   node --expose-gc --import tsx --import ./bench/keelson-from-dist.mjs bench/profile-replay.ts [small|realistic] [N]
//   PROFILE_REPLAY_CPUPROF=/tmp/replay.cpuprofile node --expose-gc --import tsx \
//     --import ./bench/keelson-from-dist.mjs bench/profile-replay.ts small 10
//   node --import tsx bench/profile-fork.ts --summarize /tmp/replay.cpuprofile
// PROFILE_REPLAY_HEAPPROF=/tmp/replay.heapprofile instead records where the replays allocate
// (a sampling allocation profile, collected objects included); PROFILE_REPLAY_PROMISES=1 counts
// the promises one replay makes (an async_hooks init hook).
import { createHook } from "node:async_hooks";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reconstructRequests, verifyLog } from "../src/reconstruct/index.js";
import { replaySession } from "../src/replay/index.js";
import { JsonlSessionStore } from "../src/store/index.js";
import { bestOf, type Timing } from "./measure.js";
import { appOptions, recordSession, SHAPES } from "./w10-replay.js";
import { startAllocationProfiler, startTurnProfiler } from "./w2s/profile.js";

async function main(): Promise<void> {
  const shape = SHAPES.find((s) => s.name === (process.argv[2] ?? "small"));
  if (shape === undefined) throw new Error(`unknown shape ${process.argv[2]}`);
  const repeats = Number(process.argv[3] ?? 10);
  const dir = await mkdtemp(join(tmpdir(), "keelson-profile-replay-"));
  try {
    const { id } = await recordSession(shape, dir);
    const options = appOptions(shape);
    const fresh = (): JsonlSessionStore => new JsonlSessionStore({ root: dir, cacheSessions: 0 });
    const verify = (): Promise<Timing> =>
      bestOf(async () => {
        const { session } = await fresh().load(id, { readOnly: true });
        if (!verifyLog(session.events).ok) throw new Error("the recorded log does not verify");
        for (const r of reconstructRequests(session.events)) void r.request;
      });
    const replay = (): Promise<Timing> =>
      bestOf(async () => {
        const report = await replaySession(fresh(), id, options);
        if (!report.identical) throw new Error("the replay is not identical");
      });
    // warm-up, untimed
    await verify();
    await replay();
    if (process.env.PROFILE_REPLAY_PROMISES !== undefined) {
      let promises = 0;
      const hook = createHook({
        init: (_id, type) => {
          if (type === "PROMISE") promises++;
        },
      });
      hook.enable();
      await replay();
      hook.disable();
      console.log(`${shape.name}: ${promises} promises made by one replay`);
      return;
    }
    const heap = process.env.PROFILE_REPLAY_HEAPPROF;
    const cpu = process.env.PROFILE_REPLAY_CPUPROF;
    const file = heap ?? cpu;
    if (file !== undefined) {
      const profiler = heap !== undefined ? await startAllocationProfiler(file) : await startTurnProfiler(file);
      for (let i = 0; i < repeats; i++) await replay();
      await profiler.stop();
      console.log(`${heap !== undefined ? "allocation" : "CPU"} profile of ${repeats} replays written to ${file}`);
      return;
    }
    const v: number[] = [];
    const r: number[] = [];
    for (let i = 0; i < repeats; i++) {
      v.push((await verify()).cpuMs);
      r.push((await replay()).cpuMs);
    }
    const best = (xs: number[]): number => Math.min(...xs);
    console.log(
      `${shape.name}: verify ${best(v).toFixed(1)} ms, replay ${best(r).toFixed(1)} ms CPU (best of ${repeats}): ` +
        `${(best(r) / best(v)).toFixed(2)}× verify`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
