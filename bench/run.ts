// The benchmark suite (`npm run bench`). Foundation: append, JSONL write+fsync, load (+repair+fold) and reconstruction,
// each printed next to a raw line-by-line JSON.parse of the same file measured in the same run.
// Absolute times vary by machine; the ratios are what we compare. Writes bench/results/*.json.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { foldRequestHeader } from "../src/header/index.js";
import { reconstructRequests } from "../src/reconstruct/index.js";
import { Session, type SessionEvent } from "../src/session/index.js";
import { JsonlSessionStore } from "../src/store/index.js";
import { LogDriver, newSession } from "../test/support/builders.js";
import { runCacheBench } from "./cache.bench.js";
import { runLoopBench } from "./loop.bench.js";

const filler = (n: number, seed: number): string => {
  const words = ["alpha", "kernel", "session", "prefix", "header", "delta", "cache", "turn", "step", "tool"];
  let out = "";
  for (let i = 0; out.length < n; i++) out += `${words[(seed + i * 7) % words.length]} `;
  return out.slice(0, n);
};

/** A log of about `events` events: turns of 3 steps, each with one tool call and realistic sizes. */
function buildLog(events: number, id = "bench"): Session {
  const driver = new LogDriver(newSession(id));
  let n = 0;
  while (driver.session.length < events) {
    n++;
    driver.turn({
      prompt: filler(200, n),
      steps: [
        { text: filler(300, n + 1), toolCalls: [{ name: "read", args: `{"path":"src/file${n}.ts"}`, result: filler(1500, n + 2) }] },
        { text: filler(300, n + 3), toolCalls: [{ name: "read", args: `{"path":"test/file${n}.ts"}`, result: filler(800, n + 4) }] },
        { text: filler(400, n + 5) },
      ],
    });
  }
  return driver.session;
}

// Run with --expose-gc (npm run bench does): collecting before each timed run keeps one run's
// garbage from being billed to the next, which otherwise dominates the variance.
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

const time = async <T>(fn: () => T | Promise<T>, repeat = 1): Promise<{ ms: number; value: T }> => {
  let best = Number.POSITIVE_INFINITY;
  let value!: T;
  for (let i = 0; i < repeat; i++) {
    gc();
    const t0 = performance.now();
    value = await fn();
    best = Math.min(best, performance.now() - t0);
  }
  return { ms: best, value };
};

const rawParse = (text: string): unknown[] => {
  const out: unknown[] = [];
  for (const line of text.split("\n")) if (line !== "") out.push(JSON.parse(line));
  return out;
};

interface Row {
  readonly workload: string;
  readonly size: string;
  readonly ms: number;
  readonly baselineMs: number;
  readonly perSec?: number;
}
const rows: Row[] = [];
const fmt = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

async function measureSize(target: number, dir: string): Promise<void> {
  const source = buildLog(target, `bench-${target}`);
  const events = source.events;
  const label = `${(events.length / 1000).toFixed(0)}k events`;

  const store = new JsonlSessionStore({ root: dir });
  await store.create(source.header);
  const file = store.fileOf(source.id);
  const write = await time(async () => {
    // flush (write + fsync) at every turn/end, as the loop does
    let from = 0;
    for (let i = 0; i < events.length; i++) {
      if (events[i]!.type === "turn/end") {
        store.append(source.id, events.slice(from, i + 1));
        await store.flush(source.id);
        from = i + 1;
      }
    }
  });
  await store.close();

  // Raw parse and load are measured alternately, best of 5 each, so both see the same machine state.
  let raw = { ms: Number.POSITIVE_INFINITY, value: [] as unknown[] };
  let load = { ms: Number.POSITIVE_INFINITY, value: 0 };
  for (let i = 0; i < 5; i++) {
    const r = await time(async () => rawParse(await readFile(file, "utf8")));
    const l = await time(async () => {
      const reader = new JsonlSessionStore({ root: dir });
      const { session } = await reader.load(source.id);
      foldRequestHeader(session.events);
      session.deriveMessages();
      await reader.release(source.id);
      return session.length;
    });
    if (r.ms < raw.ms) raw = r;
    if (l.ms < load.ms) load = l;
  }
  const append = await time(() => {
    const s = Session.create({ id: "append-bench", createdAt: 0 });
    for (const e of events) s.append(e.type, e.data as never, e.surfaceOp);
    return s;
  }, 3);
  const turns = events.filter((e) => e.type === "turn/end").length;
  rows.push({ workload: "read + raw JSON.parse (baseline)", size: label, ms: raw.ms, baselineMs: raw.ms, perSec: (events.length / raw.ms) * 1000 });
  rows.push({ workload: "Session.append", size: label, ms: append.ms, baselineMs: raw.ms, perSec: (events.length / append.ms) * 1000 });
  rows.push({ workload: `JSONL write+fsync (${turns} flushes)`, size: label, ms: write.ms, baselineMs: raw.ms, perSec: (events.length / write.ms) * 1000 });
  rows.push({ workload: "load+repair+fold+derive", size: label, ms: load.ms, baselineMs: raw.ms, perSec: (events.length / load.ms) * 1000 });
}

async function measureReconstruction(dir: string): Promise<Row[]> {
  const out: Row[] = [];
  for (const steps of [500, 1000, 2000]) {
    const s = buildLog(Math.ceil(steps / 3) * 17, `recon-${steps}`);
    const actual = s.events.filter((e: SessionEvent) => e.type === "step/start").length;
    const file = join(dir, `recon-${steps}.jsonl`);
    const text = `${s.events.map((e) => JSON.stringify(e)).join("\n")}\n`;
    await writeFile(file, text);
    const raw = await time(() => rawParse(text), 3);
    const recon = await time(() => reconstructRequests(s.events).length, 3);
    out.push({ workload: `reconstructRequests (${actual} steps, ${s.length} events)`, size: `${actual} steps`, ms: recon.ms, baselineMs: raw.ms });
  }
  return out;
}

const dir = await mkdtemp(join(tmpdir(), "keelson-bench-"));
try {
  for (const size of [10_000, 100_000]) await measureSize(size, dir);
  const recon = await measureReconstruction(dir);
  rows.push(...recon);

  console.log("\nKeelson foundation benchmark (Node", process.version, ")");
  console.log("workload".padEnd(44), "size".padEnd(12), "ms".padStart(9), "events/s".padStart(11), "raw parse ms".padStart(13), "× raw".padStart(7));
  for (const r of rows) {
    console.log(
      r.workload.padEnd(44),
      r.size.padEnd(12),
      fmt(r.ms).padStart(9),
      (r.perSec === undefined ? "" : fmt(r.perSec)).padStart(11),
      fmt(r.baselineMs).padStart(13),
      `${(r.ms / r.baselineMs).toFixed(2)}`.padStart(7),
    );
  }
  console.log("\nreconstruction time per step (linear ⇒ roughly flat):");
  for (const r of recon) {
    const steps = Number.parseInt(r.size, 10);
    console.log(`  ${r.size.padEnd(12)} ${((r.ms / steps) * 1000).toFixed(1)} µs/step`);
  }
  const loop = await runLoopBench();
  const cache = await runCacheBench();
  const resultsDir = join(import.meta.dirname, "results");
  await mkdir(resultsDir, { recursive: true });
  const out = join(resultsDir, `foundation-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  await writeFile(out, JSON.stringify({ node: process.version, date: new Date().toISOString(), rows, loop, cache }, null, 2));
  console.log(`\nresults: ${out}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
