// A CPU profile of the W2S timed turns only (preparation and warm-up excluded), written as a
// .cpuprofile (open it in Chrome DevTools or speedscope). Run with `--no-turbo-inlining` to keep
// inlined callees under their own names. The profiler slows the turns it records: a profiled
// row's timings are not comparable to an unprofiled one.
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";

export interface TurnProfiler {
  /** Stops the profiler and writes the profile to the file given at start. */
  stop(): Promise<void>;
}

export async function startTurnProfiler(file: string): Promise<TurnProfiler> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  return {
    async stop() {
      const { profile } = await session.post("Profiler.stop");
      session.disconnect();
      await writeFile(file, JSON.stringify(profile));
    },
  };
}

/**
 * A sampling allocation profile (objects later collected included: where garbage is made), written
 * as a .heapprofile when stopped.
 */
export async function startAllocationProfiler(file: string): Promise<TurnProfiler> {
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
  return {
    async stop() {
      const { profile } = await session.post("HeapProfiler.stopSampling");
      session.disconnect();
      await writeFile(file, JSON.stringify(profile));
    },
  };
}
