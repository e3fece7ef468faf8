// W6 part 2 — workers serving the PostgreSQL turn queue: turns per second with 1 / 2 / 4 worker
// processes (`node bin/keelson.js worker --emulator --concurrency C --emulator-latency-ms L`, the
// built-in emulator profile) at a realistic 200 ms model latency and at zero latency, with the
// CPU a turn costs split between the workers and PostgreSQL; and the time another worker takes to
// take over the session of a worker killed (SIGKILL) mid-turn. Each row serves as many sessions
// per worker (4 workers: 4 × the sessions, each as long) and first warms its workers up (a number
// of untimed turns in each session: JIT, connections, each worker's cache of logs), so every timed
// turn is the same turn of a session of the same length on a process as warm as the one-worker
// row's; the measured turns are enqueued by one stream per
// session at once (a single sequential enqueuer was the bottleneck of the old rows), and the
// end is awaited with one count query every 50 ms (not one awaitTurn poll per turn, whose cost
// landed in PostgreSQL's CPU per turn). The load average is recorded with every row: on a
// shared machine it says whether to trust the row.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type FleetClient, openFleetClient } from "../../src/fleet/index.js";

const BIN = join(import.meta.dirname, "../../bin/keelson.js");
const TICK_MS = 10; // USER_HZ on Linux: /proc stat times are in 1/100 s

export interface WorkerRow {
  readonly workers: number;
  /** Slots per worker (`--concurrency`). */
  readonly concurrency: number;
  readonly latencyMs: number;
  readonly turns: number;
  readonly seconds: number;
  readonly turnsPerSecond: number;
  /** CPU of the worker processes and of PostgreSQL per turn, ms. */
  readonly workerCpuMsPerTurn: number;
  readonly postgresCpuMsPerTurn: number;
  /** Context switches of the worker processes per turn: voluntary (a wake-up each) and involuntary (preempted). */
  readonly switchesPerTurn: { readonly voluntary: number; readonly involuntary: number };
  /** 1-minute load average at the row's start and end. */
  readonly load: readonly [number, number];
}

/** Untimed turns in each session before a row's measurement, unless the row says otherwise. */
const WARMUP_TURNS = 2;

/** CPU ms (user + system) of the live processes `pids`. */
export function cpuMsOf(pids: ReadonlySet<number>): number {
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Context switches of the live processes `pids` so far (/proc status): voluntary and involuntary. */
export function switchesOf(pids: ReadonlySet<number>): { voluntary: number; involuntary: number } {
  let voluntary = 0;
  let involuntary = 0;
  for (const pid of pids) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      voluntary += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    } catch {
      // the process ended meanwhile
    }
  }
  return { voluntary, involuntary };
}

/**
 * CPU ms of a PostgreSQL cluster so far: its postmaster's own and its reaped children's
 * (utime, stime, cutime, cstime), plus its live children's — backends come and go with the
 * pools, and a backend that exited must still count.
 */
export function postgresCpuMs(postmasterPid: number): number {
  const times = (pid: number): number[] => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .slice(11, 15)
      .map(Number);
  };
  const [u, s, cu, cs] = times(postmasterPid);
  let total = (u! + s! + cu! + cs!) * TICK_MS;
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === postmasterPid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== postmasterPid) continue;
      const [cu2, cs2] = [times(pid)[0]!, times(pid)[1]!];
      total += (cu2 + cs2) * TICK_MS;
    } catch {
      // the process ended meanwhile (its time moves to the postmaster's cutime)
    }
  }
  return total;
}

/**
 * Starts a `keelson worker` process and resolves once it serves (its start line on stderr);
 * `extra` adds arguments (a `--profiles` module) and environment.
 */
export function startWorkerProcess(
  url: string,
  concurrency: number,
  latencyMs: number,
  leaseMs?: number,
  extra: { readonly args?: readonly string[]; readonly env?: Readonly<Record<string, string>> } = {},
): Promise<ChildProcess> {
  const args = [
    BIN,
    "worker",
    "--emulator",
    "--store",
    url,
    "--concurrency",
    String(concurrency),
    "--emulator-latency-ms",
    String(latencyMs),
    "--quiet",
    ...(leaseMs === undefined ? [] : ["--lease-ms", String(leaseMs)]),
    ...(extra.args ?? []),
  ];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...extra.env },
  });
  return new Promise((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(() => reject(new Error(`keelson worker did not start in 30 s:\n${stderr}`)), 30_000);
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (/serving|claiming|started|worker/i.test(stderr)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`keelson worker exited ${code}:\n${stderr}`));
    });
  });
}

/**
 * Waits until none of turns `ids` is queued or running. A session's turns run in order, so it
 * polls (every 50 ms) only each session's last turn of `ids`: the poll's own cost is then the
 * same whatever the batch, where a count over every id of the batch billed PostgreSQL 1.1 ms of
 * the harness's CPU per turn at 4 workers × 8 slots (0.16 at one).
 */
export async function untilFinished(client: FleetClient, ids: readonly string[]): Promise<void> {
  const { rows: last } = await client.pool.query<{ id: string }>(
    "SELECT max(id) AS id FROM keelson_turns WHERE id = ANY ($1::bigint[]) GROUP BY session_id",
    [ids],
  );
  const lastIds = last.map((r) => r.id);
  for (;;) {
    const { rows } = await client.pool.query<{ open: string }>(
      "SELECT count(*) AS open FROM keelson_turns WHERE id = ANY ($1::bigint[]) AND status IN ('queued', 'running')",
      [lastIds],
    );
    if (rows[0]!.open === "0") return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function stopWorkers(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((done) => {
          if (c.exitCode !== null || c.signalCode !== null) return done();
          c.once("exit", () => done());
          c.kill("SIGTERM");
        }),
    ),
  );
}

/**
 * Runs `turnsPerSession` timed turns in each of `sessions` sessions per worker (4 workers: 4 × as
 * many sessions, each as long as in the 1-worker row) with `workers` workers, after `warmupTurns`
 * untimed turns in each session. Every worker process runs about as many turns as the one of the
 * 1-worker row, and every timed turn is the same turn of a session of the same length, so the rows
 * differ only by the number of workers (#20 F21). Two things the rows once differed by: with
 * 4 × the turns per session instead of 4 × the sessions, the 4-worker row timed turns 9–48 of its
 * sessions against turns 3–12 — and a worker's CPU per turn grows with the history its request
 * carries (the emulator runs in the worker: 2.4 ms a turn at turns 1–2 against 2.6–2.9 at 41–52,
 * 2026-12-05); with 2 warm-up turns per session (96 per worker) the timed turns fell inside the
 * JIT's warm-up, where one worker's CPU per turn still falls from ~6 to ~2.5–3 ms over its first
 * ~700 turns, so the rows' ratio moved with when each process's compiles landed.
 */
export async function turnsPerSecond(
  url: string,
  postmasterPid: number,
  workers: number,
  concurrency: number,
  latencyMs: number,
  sessions: number,
  turnsPerSession: number,
  tag: string,
  warmupTurns = WARMUP_TURNS,
): Promise<WorkerRow> {
  const client = await openFleetClient(url);
  const children = await Promise.all(
    Array.from({ length: workers }, () => startWorkerProcess(url, concurrency, latencyMs)),
  );
  const pids = new Set(children.map((c) => c.pid!));
  const workerCpu = (): number => cpuMsOf(pids);
  /** Enqueues `turns` turns in each session (one stream per session) and waits until all are finished. */
  const batch = async (turns: number, label: string): Promise<string[]> => {
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: sessions * workers }, async (_, s) => {
        for (let t = 0; t < turns; t++)
          ids.push(
            await client.enqueueTurn({
              sessionId: `w6-${tag}-${s}`,
              prompt: `hello ${label}${t}`,
              profile: "emulator",
            }),
          );
      }),
    );
    await untilFinished(client, ids);
    return ids;
  };
  try {
    await batch(warmupTurns, "warm-up ");
    const l0 = loadavg()[0]!;
    const w0 = workerCpu();
    const s0 = switchesOf(pids);
    const p0 = postgresCpuMs(postmasterPid);
    const t0 = performance.now();
    const ids = await batch(turnsPerSession, "");
    const seconds = (performance.now() - t0) / 1000;
    const workerMs = workerCpu() - w0;
    const s1 = switchesOf(pids);
    const postgresMs = postgresCpuMs(postmasterPid) - p0;
    const { rows: bad } = await client.pool.query(
      "SELECT id, status, error FROM keelson_turns WHERE id = ANY ($1::bigint[]) AND status <> 'done' LIMIT 1",
      [ids],
    );
    if (bad.length > 0) throw new Error(`turns did not finish done: ${JSON.stringify(bad[0])}`);
    const turns = ids.length;
    return {
      workers,
      concurrency,
      latencyMs,
      turns,
      seconds,
      turnsPerSecond: turns / seconds,
      workerCpuMsPerTurn: workerMs / turns,
      postgresCpuMsPerTurn: postgresMs / turns,
      switchesPerTurn: {
        voluntary: (s1.voluntary - s0.voluntary) / turns,
        involuntary: (s1.involuntary - s0.involuntary) / turns,
      },
      load: [l0, loadavg()[0]!],
    };
  } finally {
    await stopWorkers(children);
    await client.close();
  }
}

/**
 * Take-over time: a worker (lease `leaseMs`) is SIGKILLed while its turn waits on the model; a
 * second worker is already running. Returns ms from the kill until the session's next queued
 * turn is done (the second worker waits out the lease, takes the session over, repairs it, runs
 * the turn), and the lease, so the result reads as "lease + overhead".
 */
export async function takeover(url: string, leaseMs: number): Promise<{ ms: number; leaseMs: number }> {
  const client = await openFleetClient(url);
  const victim = await startWorkerProcess(url, 1, 60_000, leaseMs); // its turn hangs on the model for a minute
  let survivor: ChildProcess | undefined;
  try {
    const first = await client.enqueueTurn({ sessionId: "w6-takeover", prompt: "hang", profile: "emulator" });
    for (;;) {
      const record = await client.turn(first);
      if (record.status === "running") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    survivor = await startWorkerProcess(url, 1, 0, leaseMs);
    const next = await client.enqueueTurn({ sessionId: "w6-takeover", prompt: "after", profile: "emulator" });
    const killedAt = performance.now();
    victim.kill("SIGKILL");
    const done = await client.awaitTurn(next, { timeoutMs: leaseMs + 60_000 });
    if (done.status !== "done") throw new Error(`the turn after the take-over ended ${done.status}`);
    return { ms: performance.now() - killedAt, leaseMs };
  } finally {
    await stopWorkers([victim, ...(survivor === undefined ? [] : [survivor])]);
    await client.close();
  }
}
