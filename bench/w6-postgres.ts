// W6 — the PostgreSQL store (issue #14): append throughput with 1 / 4 / 16 concurrent sessions
// next to a plain INSERT loop through `pg` (the floor) and the JSONL store, all in one run; and
// `keelson sessions` over 10,000 stored sessions. A throwaway PostgreSQL cluster is started for
// the run with fsync ON (commits as a server makes them; the tests run theirs with fsync off)
// and removed after. The workers' figures (turns per second, take-over) are in w6/workers.ts.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { migrate, PostgresSessionStore } from "../src/store/postgres/index.js";
import { freshDatabase, startCluster } from "../test/support/postgres.js";
import { type AppendRow, appendThroughput, BATCH, createSessions } from "./w6/appends.js";
import { num, ratio } from "./table.js";
import type { WorkloadResult } from "./workload.js";

const ROOT = join(import.meta.dirname, "..");
const CONCURRENCY = [1, 4, 16] as const;
const FLUSHES = 800;
const LISTED = 10_000;
const GOAL = { vsFloor: 0.5, listSeconds: 1 } as const;
const run = promisify(execFile);

/** Wall seconds of `keelson sessions --store <url>` (median of 3 fresh processes) and its line count. */
async function cliList(url: string): Promise<{ seconds: number; lines: number }> {
  const home = await mkdtemp(join(tmpdir(), "keelson-w6-home-"));
  try {
    const samples: { seconds: number; lines: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const { stdout } = await run(process.execPath, [join(ROOT, "bin/keelson.js"), "sessions", "--store", url], {
        env: { PATH: process.env.PATH ?? "", HOME: home, KEELSON_HOME: home },
        maxBuffer: 64 * 1024 * 1024,
      });
      samples.push({ seconds: (performance.now() - t0) / 1000, lines: stdout.trim().split("\n").length - 1 });
    }
    return samples.sort((a, b) => a.seconds - b.seconds)[1]!;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

export async function runW6(): Promise<WorkloadResult> {
  const cluster = await startCluster(undefined, { fsync: true });
  try {
    const db = await freshDatabase(cluster.adminUrl);
    await migrate({ url: db.url });
    const appends = await appendThroughput(db.url, CONCURRENCY, FLUSHES);
    const c0 = performance.now();
    await createSessions(db.url, LISTED, 16);
    const createSeconds = (performance.now() - c0) / 1000;
    const store = new PostgresSessionStore({ url: db.url });
    const l0 = performance.now();
    const listed = (await store.list()).length;
    const listSeconds = (performance.now() - l0) / 1000;
    await store.close();
    const cli = await cliList(db.url);

    const floorOf = (r: AppendRow): AppendRow =>
      appends.find((f) => f.writer === "plain INSERT (floor)" && f.sessions === r.sessions)!;
    const rows = appends.map((r) => {
      const floor = floorOf(r);
      const vs = r.flushesPerSecond / floor.flushesPerSecond;
      return [
        r.writer,
        String(r.sessions),
        r.flushesPerSecond,
        r.eventsPerSecond,
        r.clientCpuMsPerFlush,
        r.writer === "plain INSERT (floor)" ? "" : ratio(r.flushesPerSecond, floor.flushesPerSecond),
        r.writer === "PostgresSessionStore" ? `≥${GOAL.vsFloor}× floor ${vs >= GOAL.vsFloor ? "met" : "missed"}` : "",
      ];
    });
    const floorCells = appends
      .filter((r) => r.writer === "PostgresSessionStore")
      .map((r) => `${r.sessions}: ${ratio(r.flushesPerSecond, floorOf(r).flushesPerSecond)}`)
      .join(", ");
    return {
      id: "W6",
      table: {
        title: `W6 PostgreSQL store — append throughput (${FLUSHES} flushes of ${BATCH} events per row, N sessions at once) vs a plain INSERT loop and the JSONL store; listing ${LISTED} sessions`,
        columns: ["writer", "sessions", "flushes/s", "events/s", "client CPU ms/flush", "÷ floor", "goal"],
        rows,
        notes: [
          `floor = BEGIN; INSERT … SELECT FROM unnest(seqs, lines); COMMIT per batch through pg into a bare table with the (session_id, seq) key; PostgresSessionStore = append + flush: one statement guarded by log position and lease (+ NOTIFY only for a watched session; none is watched here); JSONL = write + fdatasync per flush`,
          `goal PostgresSessionStore ≥ ${GOAL.vsFloor}× the floor — ${floorCells}`,
          `listing ${LISTED} sessions: store.list() ${num(listSeconds * 1000)} ms (${listed} rows); \`keelson sessions --store …\` ${num(cli.seconds * 1000)} ms wall for ${cli.lines} rows (median of 3 processes) — goal < ${GOAL.listSeconds} s ${cli.seconds < GOAL.listSeconds ? "met" : "missed"}; creating them through the store took ${num(createSeconds)} s (16 at a time)`,
          "throwaway PostgreSQL 15 cluster, fsync on, on the same 2-core machine as the client (their CPU competes)",
        ],
      },
      data: { appends, listSeconds, cliListSeconds: cli.seconds, listed, createSeconds },
    };
  } finally {
    await cluster.stop();
  }
}
