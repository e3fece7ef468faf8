// W6 part 3 — following turns out of the fleet (#22 §5, decision 0016): turns per second served by
// `keelson worker` processes with a follower on every turn vs none, in the same run, and the
// first-token latency to that remote follower. The workers serve w6/follow-profiles.mjs: a model
// that answers after 200 ms and streams 9 deltas 10 ms apart, the first one the wall-clock time
// it was sent; the follower (this process, another process than the workers, same machine and
// clock) records when each turn's first text delta reaches it. Rows alternate
// off / on / off / on so a drifting load average hits both; each row warms its workers up first
// (turns not counted) and enqueues its turns with one stream per session, like the other worker
// rows (workers.ts); "on" opens `client.stream(id)` right after each enqueue and drains it. A
// follower that connects after its turn started (the worker was faster than its watch) sees no
// live delta of the answer; such turns are counted, not timed.
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type FleetClient, openFleetClient } from "../../src/fleet/index.js";
import { cpuMsOf, postgresCpuMs, startWorkerProcess, stopWorkers, untilFinished } from "./workers.js";

const PROFILES = join(import.meta.dirname, "follow-profiles.mjs");
const WARMUP_TURNS = 2;

export interface FollowRow {
  readonly following: boolean;
  readonly workers: number;
  readonly turns: number;
  readonly seconds: number;
  readonly turnsPerSecond: number;
  readonly workerCpuMsPerTurn: number;
  readonly postgresCpuMsPerTurn: number;
  /** CPU of this process (enqueuers, the end check, followers) per turn. */
  readonly clientCpuMsPerTurn: number;
  readonly load: readonly [number, number];
  /** Provider's first token (in the worker) → the follower's first text delta, ms, per timed turn. */
  readonly firstTokenMs: readonly number[];
  /** Followed turns whose answer arrived with no live delta (the follower connected late). */
  readonly noLiveDelta: number;
}

export interface FollowSetup {
  readonly workers: number;
  readonly concurrency: number;
  readonly latencyMs: number;
  readonly sessions: number;
  readonly turnsPerSession: number;
}

const now = (): number => performance.timeOrigin + performance.now();

/** Drains a follower of turn `id`; resolves with the first-token latency, or undefined without a live delta. */
async function followed(client: FleetClient, id: string): Promise<number | undefined> {
  let firstAt: number | undefined;
  let text = "";
  for await (const event of client.stream(id)) {
    if (event.type !== "text-delta") continue;
    firstAt ??= now();
    text += event.delta;
  }
  const stamp = /^t(\d+\.\d+) /.exec(text);
  return firstAt === undefined || stamp === null ? undefined : firstAt - Number(stamp[1]);
}

async function row(url: string, postmaster: number, setup: FollowSetup, following: boolean, tag: string) {
  const client = await openFleetClient(url);
  const children = await Promise.all(
    Array.from({ length: setup.workers }, () =>
      startWorkerProcess(url, setup.concurrency, 0, undefined, {
        args: ["--profiles", PROFILES],
        env: { KEELSON_BENCH_LATENCY_MS: String(setup.latencyMs) },
      }),
    ),
  );
  const pids = new Set(children.map((c) => c.pid!));
  const follows: Promise<number | undefined>[] = [];
  const batch = async (turns: number, label: string, follow: boolean): Promise<string[]> => {
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: setup.sessions }, async (_, s) => {
        for (let t = 0; t < turns; t++) {
          const id = await client.enqueueTurn({
            sessionId: `w6f-${tag}-${s}`,
            prompt: `hello ${label}${t}`,
            profile: "stamped",
          });
          ids.push(id);
          if (follow) follows.push(followed(client, id));
        }
      }),
    );
    await untilFinished(client, ids);
    return ids;
  };
  try {
    await batch(WARMUP_TURNS, "warm-up ", false);
    const l0 = loadavg()[0]!;
    const w0 = cpuMsOf(pids);
    const p0 = postgresCpuMs(postmaster);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const ids = await batch(setup.turnsPerSession, "", following);
    const latencies = await Promise.all(follows);
    const seconds = (performance.now() - t0) / 1000;
    const c1 = process.cpuUsage(c0);
    const turns = ids.length;
    const timed = latencies.filter((l): l is number => l !== undefined);
    return {
      following,
      workers: setup.workers,
      turns,
      seconds,
      turnsPerSecond: turns / seconds,
      workerCpuMsPerTurn: (cpuMsOf(pids) - w0) / turns,
      postgresCpuMsPerTurn: (postgresCpuMs(postmaster) - p0) / turns,
      clientCpuMsPerTurn: (c1.user + c1.system) / 1000 / turns,
      load: [l0, loadavg()[0]!],
      firstTokenMs: timed,
      noLiveDelta: latencies.length - timed.length,
    } satisfies FollowRow;
  } finally {
    await stopWorkers(children);
    await client.close();
  }
}

/** Off / on / off / on rows of `setup` on a migrated database. */
export async function followingRows(url: string, postmaster: number, setup: FollowSetup): Promise<FollowRow[]> {
  const rows: FollowRow[] = [];
  for (const [i, following] of [false, true, false, true].entries())
    rows.push(await row(url, postmaster, setup, following, `${i}`));
  return rows;
}

/** The value below which `q` of `values` lie (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
