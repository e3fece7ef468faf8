// W5 start-up cost: what a fresh process pays before it does anything, next to a bare
// `node -e 0` measured in the same run. Rows (each a new process per sample, from the repo root):
//   - `keelson --help` (the command table alone, no command module loaded);
//   - `keelson sessions` over 20 stored sessions and `keelson show <id>` of one of them, in a
//     temporary KEELSON_HOME;
//   - `import { createAgent } from "keelson"` — the package's own exports, i.e. dist/ — with the
//     import's own time and RSS growth measured inside the child.
// Per row: the median of RUNS samples, the rows interleaved round-robin so machine noise hits
// the baseline and the commands alike. Wall time is spawn → exit as the parent sees it; peak RSS
// is the child's own `process.resourceUsage().maxRSS`, written to fd 3 at exit by a `-r` preload.
// dist/ is rebuilt first (`npm run build`), so the figures are never a stale build's.
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { defaultSessionsDir } from "../src/home/index.js";
import { JsonlSessionStore } from "../src/store/index.js";
import { buildLog } from "./logs.js";
import { type Cell, num, ratio } from "./table.js";
import type { WorkloadResult } from "./workload.js";

const ROOT = join(import.meta.dirname, "..");
/** Samples per row (odd, so the median is one of them). */
const RUNS = 21;
const SESSIONS = 20;
/** Steps per stored session: 10 turns of 3 steps, two tool calls each (bench/logs.ts sizes). */
const SESSION_STEPS = 30;
const MB = 1024 * 1024;

// The preload that reports the child's peak RSS. It is a CommonJS file passed with `-r`, not a
// data: URL passed with `--import`: the latter makes `node -e 0` set up the ESM loader (about
// +4 ms on a ~60 ms baseline here), which would shrink every ratio.
const PRELOAD = `process.on("exit", () => require("node:fs").writeSync(3, JSON.stringify({ maxRssKB: process.resourceUsage().maxRSS }) + "\\n"));\n`;

// Row 5's child: times the import itself and the RSS it adds, then proves createAgent is there.
const IMPORT_CHILD = [
  'import { writeSync } from "node:fs";',
  "const rss0 = process.memoryUsage().rss;",
  "const t0 = performance.now();",
  'const { createAgent } = await import("keelson");',
  "const importMs = performance.now() - t0;",
  "const importRssBytes = process.memoryUsage().rss - rss0;",
  'if (typeof createAgent !== "function") throw new Error("keelson exports no createAgent");',
  'writeSync(3, JSON.stringify({ importMs, importRssBytes }) + "\\n");',
  'console.log("createAgent ok");',
].join(" ");

/** One row: the node arguments of its process, and what its stdout must hold (it really ran). */
export interface StartupCommand {
  readonly label: string;
  readonly args: readonly string[];
  readonly expect: string;
  readonly goal?: Goal;
  /** Added to the children's environment for this row only. */
  readonly env?: Readonly<Record<string, string>>;
  /** Run before each sample of this row, untimed (e.g. removing an index so the row measures its rebuild). */
  readonly before?: () => Promise<void>;
  /** The exit code the row must end with (default 0), and what its stderr must hold then. */
  readonly exitCode?: number;
  readonly expectStderr?: string;
}

export interface Goal {
  readonly label: string;
  readonly met: (row: Summary, baseline: Summary) => boolean;
}

/** One fresh process's figures; the import ones only for the import row. */
export interface Sample {
  readonly wallMs: number;
  readonly maxRssMB: number;
  readonly importMs?: number;
  readonly importRssMB?: number;
}

export interface Samples {
  readonly command: StartupCommand;
  readonly samples: readonly Sample[];
}

/** The medians of a row's samples. */
interface Summary {
  readonly wallMs: number;
  readonly maxRssMB: number;
  readonly importMs?: number;
  readonly importRssMB?: number;
}

export const BASELINE: StartupCommand = { label: "node -e 0 (baseline)", args: ["-e", "0"], expect: "" };

export const IMPORT_ROW: StartupCommand = {
  label: 'import { createAgent } from "keelson"',
  args: ["--input-type=module", "-e", IMPORT_CHILD],
  expect: "createAgent ok",
  goal: {
    label: "import ≤ 150 ms, ≤ 40 MB",
    met: (row) =>
      (row.importMs ?? Number.POSITIVE_INFINITY) <= 150 && (row.importRssMB ?? Number.POSITIVE_INFINITY) <= 40,
  },
};

const timesBaseline = (limit: number): Goal => ({
  label: `≤ ${limit}×`,
  met: (row, baseline) => row.wallMs <= limit * baseline.wallMs,
});

/** The five rows, `show` reading session `showId`. */
export function startupCommands(showId: string): StartupCommand[] {
  return [
    BASELINE,
    { label: "keelson --help", args: ["bin/keelson.js", "--help"], expect: "sessions", goal: timesBaseline(2) },
    sessionsRow(SESSIONS),
    {
      label: "keelson show <id>",
      args: ["bin/keelson.js", "show", showId],
      expect: `session ${showId}`,
      goal: timesBaseline(3),
    },
    IMPORT_ROW,
  ];
}

/** `keelson sessions`; its stdout must list the last of `count` stored sessions. */
export function sessionsRow(count: number): StartupCommand {
  return {
    label: `keelson sessions (${count} stored)`,
    args: ["bin/keelson.js", "sessions"],
    expect: sessionId(count - 1),
    goal: timesBaseline(2.5),
  };
}

const sessionId = (i: number): string => `w5-session-${String(i).padStart(2, "0")}`;

/** A KEELSON_HOME under `dir` holding `count` stored sessions; returns the home and their ids. */
export async function prepareHome(dir: string, count: number): Promise<{ home: string; ids: string[] }> {
  const home = join(dir, "home");
  const store = new JsonlSessionStore({ root: defaultSessionsDir({ KEELSON_HOME: home }) });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const log = buildLog({ steps: SESSION_STEPS }, sessionId(i));
    await store.create(log.header);
    store.append(log.id, log.events);
    await store.flush(log.id);
    ids.push(log.id);
  }
  await store.close();
  return { home, ids };
}

/** The children's environment: KEELSON_HOME set, and no NODE_OPTIONS (they run on a bare node). */
export function childEnv(home: string): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _, ...env } = process.env;
  return { ...env, KEELSON_HOME: home, NO_COLOR: "1" };
}

/** One fresh process of `command`: its wall time and what it reported on fd 3. */
function runOnce(command: StartupCommand, preload: string, env: NodeJS.ProcessEnv): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ["-r", preload, ...command.args], {
      cwd: ROOT,
      env: command.env === undefined ? env : { ...env, ...command.env },
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    let wallMs = 0;
    const out = { stdout: "", stderr: "", fd3: "" };
    child.stdout!.on("data", (d: Buffer) => (out.stdout += d));
    child.stderr!.on("data", (d: Buffer) => (out.stderr += d));
    child.stdio[3]!.on("data", (d: Buffer) => (out.fd3 += d));
    child.on("exit", () => (wallMs = performance.now() - t0));
    child.on("error", reject);
    child.on("close", (code) => {
      const stderrOk = command.expectStderr === undefined || out.stderr.includes(command.expectStderr);
      if (code !== (command.exitCode ?? 0) || !out.stdout.includes(command.expect) || !stderrOk)
        reject(new Error(`${command.label} exited ${code} without "${command.expect}":\n${out.stdout}${out.stderr}`));
      else resolve(sampleOf(wallMs, out.fd3, command));
    });
  });
}

/** The fd 3 report (one JSON object a line) as a sample. */
function sampleOf(wallMs: number, fd3: string, command: StartupCommand): Sample {
  const report: { maxRssKB?: number; importMs?: number; importRssBytes?: number } = Object.assign(
    {},
    ...fd3
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as object),
  );
  if (report.maxRssKB === undefined) throw new Error(`${command.label} reported no peak RSS on fd 3: ${fd3}`);
  return {
    wallMs,
    maxRssMB: report.maxRssKB / 1024,
    ...(report.importMs === undefined ? {} : { importMs: report.importMs }),
    ...(report.importRssBytes === undefined ? {} : { importRssMB: report.importRssBytes / MB }),
  };
}

/**
 * `runs` samples of every command, round-robin (one of each per round), after `warmup`
 * discarded rounds (the first processes pay for a cold file cache). `dir` holds the preload.
 */
export async function measureStartup(
  commands: readonly StartupCommand[],
  options: { readonly runs: number; readonly warmup: number; readonly dir: string; readonly env: NodeJS.ProcessEnv },
): Promise<Samples[]> {
  const preload = join(options.dir, "rss-at-exit.cjs");
  await writeFile(preload, PRELOAD);
  const samples = commands.map((): Sample[] => []);
  for (let round = 0; round < options.warmup + options.runs; round++) {
    for (const [i, command] of commands.entries()) {
      await command.before?.();
      const sample = await runOnce(command, preload, options.env);
      if (round >= options.warmup) samples[i]!.push(sample);
    }
  }
  return commands.map((command, i) => ({ command, samples: samples[i]! }));
}

export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function summarize(samples: readonly Sample[]): Summary {
  const of = (pick: (s: Sample) => number | undefined): number | undefined => {
    const xs = samples.map(pick).filter((x): x is number => x !== undefined);
    return xs.length === 0 ? undefined : median(xs);
  };
  const importMs = of((s) => s.importMs);
  const importRssMB = of((s) => s.importRssMB);
  return {
    wallMs: of((s) => s.wallMs)!,
    maxRssMB: of((s) => s.maxRssMB)!,
    ...(importMs === undefined ? {} : { importMs }),
    ...(importRssMB === undefined ? {} : { importRssMB }),
  };
}

/** `npm run build`, so the timed processes run the current sources. */
async function build(): Promise<void> {
  try {
    await promisify(execFile)("npm", ["run", "build"], { cwd: ROOT });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`npm run build failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`, { cause: error });
  }
}

function tableRows(measured: readonly Samples[]): Cell[][] {
  const summaries = measured.map((m) => summarize(m.samples));
  const base = summaries[0]!;
  return measured.map(({ command }, i): Cell[] => {
    const s = summaries[i]!;
    return [
      command.label,
      s.wallMs,
      ratio(s.wallMs, base.wallMs),
      s.maxRssMB,
      i === 0 ? undefined : `+${num(s.maxRssMB - base.maxRssMB)}`,
      s.importMs,
      s.importRssMB,
      command.goal?.label ?? "baseline",
      command.goal === undefined ? undefined : command.goal.met(s, base) ? "met" : "missed",
    ];
  });
}

export async function runW5(): Promise<WorkloadResult> {
  await build();
  const dir = await mkdtemp(join(tmpdir(), "keelson-w5-"));
  try {
    const { home, ids } = await prepareHome(dir, SESSIONS);
    const commands = startupCommands(ids[0]!);
    const measured = await measureStartup(commands, { runs: RUNS, warmup: 1, dir, env: childEnv(home) });
    return {
      id: "W5",
      table: {
        title:
          "W5 start-up cost — fresh `node bin/keelson.js …` processes and the library import, vs a bare `node -e 0`",
        columns: [
          "command",
          "wall ms",
          "× baseline",
          "peak RSS MB",
          "MB vs baseline",
          "import ms",
          "import +RSS MB",
          "goal",
          "result",
        ],
        rows: tableRows(measured),
        notes: [
          `median of ${RUNS} fresh processes per row, rows interleaved round-robin (after one discarded warm-up round); wall = spawn → exit seen by the parent`,
          "peak RSS = the child's process.resourceUsage().maxRSS at exit (a -r preload writes it to fd 3); children run without NODE_OPTIONS",
          `sessions / show: ${SESSIONS} stored sessions of ${SESSION_STEPS} steps (${SESSION_STEPS / 3} turns, bench/logs.ts sizes) in a temporary KEELSON_HOME; show prints the first`,
          'import ms / +RSS MB: inside the child, around `await import("keelson")` (the package\'s own exports → dist/), RSS after − before; its wall ms is the whole process',
          "dist/ rebuilt with npm run build before timing",
        ],
      },
      data: measured.map(({ command, samples }) => ({ command: command.label, args: command.args, samples })),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
