// W8 — the agent host (issue #22 §4): 1,000 sessions streaming at once in one process on the
// in-process emulator (rule-based model, 100 ms per request, two requests a turn: a tool call,
// then the answer), each row a fresh process (bench/w8/worker.ts). The baselines are measured in
// the same run: the same sessions as bare agents (`createAgent` + `agent.stream`) in memory and
// over the JSONL store, so "host + JSONL ÷ agents + JSONL" is the host's own cost and "÷ in
// memory" what persistence adds. Figures: turns/s, CPU per step (and PostgreSQL's), RSS and heap
// per open session, p50/p99 event latency (loop commit or provider chunk → the consumer), the
// load average per row; durability `step` (fsync per step) next to `turn` (fsync per turn).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { migrate } from "../src/store/postgres/index.js";
import { freshDatabase, startCluster } from "../test/support/postgres.js";
import { num, ratio } from "./table.js";
import type { W8RunnerName } from "./w8/runners.js";
import type { W8WorkerConfig, W8WorkerResult } from "./w8/worker.js";
import { KEELSON_FROM_DIST, type WorkloadResult } from "./workload.js";

const SESSIONS = Number(process.env.W8_SESSIONS ?? 1000);
const TURNS = 2;
const LATENCY_MS = 100;
const ROWS: readonly (readonly [W8RunnerName, "step" | "turn"])[] = [
  ["agents, in memory", "step"],
  ["agents + JSONL", "step"],
  ["agents + JSONL", "turn"],
  ["host + JSONL", "step"],
  ["host + JSONL", "turn"],
  ["host + PostgreSQL", "step"],
  ["host + PostgreSQL", "turn"],
];
const BASELINE: W8RunnerName = "agents, in memory";

const root = join(import.meta.dirname, "..");
const run = promisify(execFile);

interface Row extends W8WorkerResult {
  readonly load: readonly [number, number];
}

async function spawnRow(config: W8WorkerConfig): Promise<Row> {
  const load0 = loadavg()[0]!;
  const { stdout } = await run(
    process.execPath,
    ["--expose-gc", ...KEELSON_FROM_DIST, join(import.meta.dirname, "w8", "worker.ts"), JSON.stringify(config)],
    { cwd: root, maxBuffer: 16 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as W8WorkerResult;
  process.stderr.write(
    `  W8 ${config.runner.padEnd(18)} ${config.durability.padEnd(4)} ${num(result.turnsPerSecond).padStart(6)} turns/s ${num(result.cpuMsPerStep).padStart(6)} CPU ms/step\n`,
  );
  return { ...result, load: [load0, loadavg()[0]!] };
}

export async function runW8(): Promise<WorkloadResult> {
  const cluster = await startCluster({ fsync: true });
  const rows: Row[] = [];
  try {
    const postmaster = Number(readFileSync(join(cluster.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
    for (const [runner, durability] of ROWS) {
      const base = { runner, durability, sessions: SESSIONS, turns: TURNS, latencyMs: LATENCY_MS };
      if (runner !== "host + PostgreSQL") {
        rows.push(await spawnRow(base));
        continue;
      }
      const db = await freshDatabase(cluster.adminUrl);
      await migrate({ url: db.url });
      rows.push(await spawnRow({ ...base, url: db.url, postmaster }));
      await db.drop();
    }
  } finally {
    await cluster.stop();
  }
  const at = (runner: W8RunnerName, durability: "step" | "turn"): Row =>
    rows.find((r) => r.runner === runner && r.durability === durability)!;
  const base = at(BASELINE, "step");
  const hostCost = (d: "step" | "turn"): string =>
    ratio(at("host + JSONL", d).cpuMsPerStep, at("agents + JSONL", d).cpuMsPerStep);
  const stepVsTurn = (r: W8RunnerName): string =>
    `${r}: CPU ${ratio(at(r, "step").cpuMsPerStep, at(r, "turn").cpuMsPerStep)}, turns/s ${ratio(at(r, "step").turnsPerSecond, at(r, "turn").turnsPerSecond)}`;
  return {
    id: "W8",
    table: {
      title: `W8 agent host — ${SESSIONS} sessions streaming at once in one process, ${TURNS} timed turns each (2 model requests a turn, ${LATENCY_MS} ms each, in-process emulator); fresh process per row`,
      columns: [
        "runner",
        "durability",
        "turns/s",
        "÷ in memory",
        "CPU ms/step",
        "÷ in memory",
        "PostgreSQL CPU ms/step",
        "RSS MB open",
        "RSS KB/session",
        "heap KB/session",
        "event p50 ms",
        "event p99 ms",
        "turn-end p50 ms",
        "turn-end p99 ms",
        "load avg",
      ],
      rows: rows.map((r) => {
        const isBase = r.runner === BASELINE;
        return [
          r.runner,
          r.runner === BASELINE ? "—" : r.durability,
          r.turnsPerSecond,
          isBase ? "" : ratio(r.turnsPerSecond, base.turnsPerSecond),
          r.cpuMsPerStep,
          isBase ? "" : ratio(r.cpuMsPerStep, base.cpuMsPerStep),
          r.postgresCpuMsPerStep === undefined ? "" : r.postgresCpuMsPerStep,
          r.rssMbOpen,
          r.rssKbPerSession,
          r.heapKbPerSession,
          r.latencyMs50,
          r.latencyMs99,
          r.turnEndMs50,
          r.turnEndMs99,
          `${r.load[0].toFixed(1)}→${r.load[1].toFixed(1)}`,
        ];
      }),
      notes: [
        `per row: ${SESSIONS} sessions each open with one untimed turn (created in the store), then ${TURNS} timed turns per session — every session's turns back to back, all sessions at once; CPU per step = the process's user + system CPU over the timed turns ÷ their steps (PostgreSQL's: every postgres process of the row's cluster, /proc)`,
        `host's own cost (CPU per step, host + JSONL ÷ agents + JSONL, same durability): step ${hostCost("step")}, turn ${hostCost("turn")}`,
        `durability step ÷ turn (one fsync per step vs per turn): ${stepVsTurn("agents + JSONL")}; ${stepVsTurn("host + JSONL")}; ${stepVsTurn("host + PostgreSQL")}`,
        "RSS KB/session = (RSS with every session open, after a GC − RSS before the first open) ÷ sessions; heap KB/session = heap used with every session open − after they were disposed, ÷ sessions",
        "event latency = from the loop committing an event (session/event) or the provider's chunk opening a block (llm/chunk) to the stream's consumer receiving it, over every committed event and block start of the timed turns except turn-end; turn-end latency = from `turn/end` committed to the consumer receiving it, which waits for the turn's final flush (the outcome is delivered durable), so it carries the store's queue: with durability `step` every step's flush is queued too",
        "throwaway PostgreSQL cluster, fsync on, same machine (its CPU competes with the client's); the host's PostgreSQL store uses a pool of 16 connections; the JSONL store fsyncs each session's file (libuv's 4 threads run them)",
      ],
    },
    data: { sessions: SESSIONS, turns: TURNS, latencyMs: LATENCY_MS, rows },
  };
}
