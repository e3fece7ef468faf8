// Timing for in-process workloads: a forced GC before every timed run (npm run bench passes
// --expose-gc), so one run's garbage is not billed to the next, and best-of-N.
import { performance } from "node:perf_hooks";

export const gc: () => void = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** Wall and process CPU time (user + system, all threads) of one run, in ms. */
export interface Timing {
  readonly ms: number;
  readonly cpuMs: number;
}

/**
 * Best (minimum) wall time and, separately, best CPU time of `repeat` runs of `fn`, with the
 * last run's value. CPU time is the robust figure on a shared box: it leaves out the time the
 * process waited for a core; wall time keeps what CPU time cannot see (I/O, fsync).
 */
export async function bestOf<T>(fn: () => T | Promise<T>, repeat = 1): Promise<Timing & { value: T }> {
  let ms = Number.POSITIVE_INFINITY;
  let cpuMs = Number.POSITIVE_INFINITY;
  let value!: T;
  for (let i = 0; i < repeat; i++) {
    gc();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    value = await fn();
    ms = Math.min(ms, performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpuMs = Math.min(cpuMs, (c.user + c.system) / 1000);
  }
  return { ms, cpuMs, value };
}

/** The minimum of each of several timings. */
export const best = (timings: readonly Timing[]): Timing => ({
  ms: Math.min(...timings.map((t) => t.ms)),
  cpuMs: Math.min(...timings.map((t) => t.cpuMs)),
});

/** The baseline every log workload is printed next to: read + line-by-line JSON.parse. */
export function rawParse(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split("\n")) if (line !== "") out.push(JSON.parse(line));
  return out;
}
