// The benchmark suite (`npm run bench`): the workloads below, each printed as one table where every
// figure sits next to its baseline measured in the same run, and written together to ONE JSON
// file under bench/results/ (gitignored). Absolute times vary by machine; compare the ratios.
//   W1 cache economics (w1-cache.ts)   W2 loop overhead vs peers (w2-loop.ts, w2/)
//   W3 resume (w3-resume.ts)           W4 reconstruction (w4-reconstruct.ts)
//   W5 start-up cost (w5-startup.ts)   W2S turns over stored sessions (w2s-stored.ts, w2s/)
//   W6 PostgreSQL (w6-postgres.ts)     W7 session index at 10k sessions (w7-session-index.ts)
//   W8 the agent host: 1,000 sessions streaming at once in one process (w8-host.ts, w8/)
//   W9 the bash sandbox's cost per command (w9-sandbox.ts)
//   W10 replay of a 1,000-turn session vs verify of it (w10-replay.ts)
// `node --expose-gc --import tsx --import ./bench/keelson-from-dist.mjs bench/run.ts [W1 W2 W2S W3 W4 W5 W6 W7 W8 W9 W10]` runs a subset;
// `… bench/run.ts W6F` runs only W6's fleet rows (turns/s and CPU per turn at 1/2/4 workers; not in a full run).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { printTable } from "./table.js";
import { runW1 } from "./w1-cache.js";
import { runW2 } from "./w2-loop.js";
import { runW2S } from "./w2s-stored.js";
import { runW3 } from "./w3-resume.js";
import { runW4 } from "./w4-reconstruct.js";
import { runW5 } from "./w5-startup.js";
import { runW6, runW6Fleet } from "./w6-postgres.js";
import { runW7 } from "./w7-session-index.js";
import { runW8 } from "./w8-host.js";
import { runW9 } from "./w9-sandbox.js";
import { runW10 } from "./w10-replay.js";
import type { WorkloadResult } from "./workload.js";

const wanted = new Set(process.argv.slice(2).map((a) => a.toUpperCase()));
const selected = (id: string): boolean => wanted.size === 0 || wanted.has(id);

const started = performance.now();
const dir = await mkdtemp(join(tmpdir(), "keelson-bench-"));
const results: WorkloadResult[] = [];
const printed: string[] = [];
// The load average says how busy the box was: on a shared 2-core machine it is the first thing
// to check before trusting a wall time (CPU times are less sensitive, not immune).
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
const loadAtStart = load();
console.log(
  `Keelson benchmarks — Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), load average ${loadAtStart}`,
);
try {
  const workloads: [string, () => Promise<WorkloadResult>][] = [
    ["W1", runW1],
    ["W2", runW2],
    ["W2S", runW2S],
    ["W3", () => runW3(dir)],
    ["W4", runW4],
    ["W5", runW5],
    ["W6", runW6],
    ["W6F", runW6Fleet],
    ["W7", runW7],
    ["W8", runW8],
    ["W9", runW9],
    ["W10", runW10],
  ];
  for (const [id, workload] of workloads) {
    if (!selected(id) || (id === "W6F" && !wanted.has(id))) continue; // W6F: only when asked for (W6 has its rows)
    const result = await workload();
    results.push(result);
    printed.push(printTable(result.table));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
const seconds = (performance.now() - started) / 1000;
const resultsDir = join(import.meta.dirname, "results");
await mkdir(resultsDir, { recursive: true });
const date = new Date().toISOString();
const out = join(resultsDir, `bench-${date.replace(/[:.]/g, "-")}.json`);
await writeFile(
  out,
  `${JSON.stringify({ node: process.version, cores: cpus().length, date, seconds, loadAverage: { start: loadAtStart, end: load() }, workloads: Object.fromEntries(results.map((r) => [r.id, { title: r.table.title, data: r.data, printed: printed[results.indexOf(r)] }])) }, null, 2)}\n`,
);
console.log(`\nbench took ${seconds.toFixed(0)} s (load average at the end ${load()}); results: ${out}`);
