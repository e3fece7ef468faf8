// W7 session index (issue #20): `keelson sessions` and `keelson resume --last` over 10,000 stored
// JSONL sessions, with the summary index (src/store/session-index.ts) next to the full scan it
// replaces — the same build with `KEELSON_SESSION_INDEX=off`, which reads every log as before —
// measured in the same run, rows interleaved round-robin (w5-startup.ts's runner: fresh
// `node bin/keelson.js …` processes, wall = spawn → exit, peak RSS = the child's maxRSS).
// Rows (their order matters: each round runs them in turn): the full scan; the index rebuilt
// from nothing (it is removed before each sample); the index with nothing changed since the
// last listing (right after the rebuild); `resume --last` to the provider; `resume --last "hi"`
// (the built-in emulator model; each sample appends a turn to the newest session) with the full
// scan and with the index; then `sessions` with the newest log changed since the last listing
// (right after that turn: one log re-read, one row of the kept listing patched). Goal: ≤ 300 ms
// for `sessions` and `resume --last` at 10k.
// The sessions are written as files directly (one 2-turn log, re-headed per id; mtimes one
// second apart; cwd the temporary home, so `resume` scans no large workspace) — creating 10,000
// through the store would fsync 20,000 times.
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultSessionsDir } from "../src/home/index.js";
import { encodeEventLine, encodeMetaLine } from "../src/store/jsonl-codec.js";
import { INDEX_DIR } from "../src/store/session-index-file.js";
import { buildLog } from "./logs.js";
import { type Cell, num, ratio } from "./table.js";
import type { WorkloadResult } from "./workload.js";
import { childEnv, type Goal, measureStartup, median, type Samples, type StartupCommand } from "./w5-startup.js";

const SESSIONS = Number(process.env.W7_SESSIONS ?? 10_000);
/** Samples per row (odd, so the median is one of them); the full-scan rows take seconds each. */
const RUNS = Number(process.env.W7_RUNS ?? 5);
/** Steps per stored session: 2 turns of 3 steps (bench/logs.ts sizes), about 8 KB of log. */
const SESSION_STEPS = 6;
const GOAL_MS = 300;
const OFF = { KEELSON_SESSION_INDEX: "off" };
const MODEL = { KEELSON_MODEL: "emulator:emulator-anthropic" };

const sessionId = (i: number): string => `w7-${String(i).padStart(6, "0")}`;

/** `count` logs in a fresh KEELSON_HOME; session i is created and last written i seconds after the first. */
async function prepareSessions(
  dir: string,
  count: number,
): Promise<{ home: string; sessions: string; logBytes: number }> {
  const home = join(dir, "home");
  const sessions = defaultSessionsDir({ KEELSON_HOME: home });
  await mkdir(sessions, { recursive: true });
  const log = buildLog({ steps: SESSION_STEPS }, sessionId(0));
  const body = log.events.map(encodeEventLine).join("");
  const t0 = Date.now() - count * 1000;
  let logBytes = 0;
  for (let i = 0; i < count; i++) {
    const id = sessionId(i);
    const file = join(sessions, `${id}.jsonl`);
    const text = encodeMetaLine({ ...log.header, id, createdAt: t0 + i * 1000, cwd: home }) + body;
    logBytes = Buffer.byteLength(text);
    await writeFile(file, text);
    const at = new Date(t0 + i * 1000);
    await utimes(file, at, at);
  }
  return { home, sessions, logBytes };
}

const atMost = (ms: number): Goal => ({ label: `≤ ${ms} ms`, met: (row) => row.wallMs <= ms });

/** A row and the row it is compared with (its full scan), by index in the list. */
type Row = StartupCommand & { readonly versus?: number };

function commands(sessions: string, count: number): Row[] {
  const newest = sessionId(count - 1);
  const list = ["bin/keelson.js", "sessions"];
  // Up to the provider: the session chosen, loaded and validated, then "no API key" (exit 2) — no turn.
  const choose = ["bin/keelson.js", "resume", "--last", "--model", "anthropic:claude-sonnet-4-5", "hi"];
  const noKey = { ANTHROPIC_API_KEY: "" };
  const turn = ["bin/keelson.js", "resume", "--last", "hi"];
  return [
    { label: "sessions — full scan (index off)", args: list, expect: newest, env: OFF },
    {
      label: "sessions — index rebuilt",
      args: list,
      expect: newest,
      before: () => rm(join(sessions, INDEX_DIR), { recursive: true, force: true }),
      versus: 0,
    },
    // Right after the rebuilt row: nothing changed since the last listing (its kept rendering printed as is).
    { label: "sessions — index, nothing changed since", args: list, expect: newest, goal: atMost(GOAL_MS), versus: 0 },
    {
      label: "resume --last, to the provider — full scan",
      args: choose,
      expect: "",
      exitCode: 2,
      expectStderr: "no API key",
      env: { ...OFF, ...noKey },
    },
    {
      label: "resume --last, to the provider — index",
      args: choose,
      expect: "",
      exitCode: 2,
      expectStderr: "no API key",
      env: noKey,
      goal: atMost(GOAL_MS),
      versus: 3,
    },
    {
      label: "resume <id> + emulated turn (no listing)",
      args: ["bin/keelson.js", "resume", newest, "hi"],
      expect: "Understood: hi",
      env: MODEL,
      versus: 6,
    },
    {
      label: "resume --last + emulated turn — full scan",
      args: turn,
      expect: "Understood: hi",
      env: { ...OFF, ...MODEL },
    },
    { label: "resume --last + emulated turn — index", args: turn, expect: "Understood: hi", env: MODEL, versus: 6 },
    // Right after the turn row: the newest log changed since the last listing (one log read, one row patched).
    {
      label: "sessions — index, the newest log changed since",
      args: list,
      expect: newest,
      goal: atMost(GOAL_MS),
      versus: 0,
    },
  ];
}

function tableRows(rows: readonly Row[], measured: readonly Samples[]): Cell[][] {
  const medians = measured.map(({ samples }) => ({
    wallMs: median(samples.map((s) => s.wallMs)),
    maxRssMB: median(samples.map((s) => s.maxRssMB)),
  }));
  return rows.map((row, i): Cell[] => {
    const m = medians[i]!;
    const base = row.versus === undefined ? undefined : medians[row.versus]!;
    return [
      row.label,
      m.wallMs,
      base === undefined ? "baseline" : ratio(m.wallMs, base.wallMs),
      m.maxRssMB,
      base === undefined ? undefined : ratio(m.maxRssMB, base.maxRssMB),
      row.goal?.label,
      row.goal === undefined ? undefined : row.goal.met(m, base ?? m) ? "met" : "missed",
    ];
  });
}

export async function runW7(): Promise<WorkloadResult> {
  const dir = await mkdtemp(join(tmpdir(), "keelson-w7-"));
  try {
    const { home, sessions, logBytes } = await prepareSessions(dir, SESSIONS);
    const rows = commands(sessions, SESSIONS);
    const measured = await measureStartup(rows, {
      runs: RUNS,
      warmup: 1,
      dir,
      env: childEnv(home),
    });
    return {
      id: "W7",
      table: {
        title: `W7 session index — \`keelson sessions\` and \`keelson resume --last\` over ${SESSIONS} stored JSONL sessions, index vs full scan`,
        columns: ["command", "wall ms", "× full scan", "peak RSS MB", "RSS × full scan", "goal", "result"],
        rows: tableRows(rows, measured),
        notes: [
          `median of ${RUNS} fresh processes per row, rows interleaved round-robin (after one discarded warm-up round); wall = spawn → exit seen by the parent; peak RSS = the child's maxRSS`,
          `${SESSIONS} sessions of ${SESSION_STEPS} steps (${SESSION_STEPS / 3} turns, bench/logs.ts sizes, ${num(logBytes / 1024)} KB each, written directly); full scan = KEELSON_SESSION_INDEX=off (every log read and validated, as before the index)`,
          "index rebuilt: the index directory is removed before each sample (every log read once, the index and the kept listing written); nothing changed since: right after the rebuild (the kept listing printed as is); the newest log changed since: right after the turn row (the newest log re-read, its row patched into the kept listing, the delta and the listing rewritten)",
          'resume --last, to the provider: --model anthropic:… without a key, so the command stops (exit 2, "no API key") after choosing the session and loading it read-only — what the number of sessions costs, without a turn',
          "+ emulated turn: the built-in emulator model (its tokenizer's start-up included), one headless turn appended to the newest session per sample; resume <id> is the same turn without the listing",
        ],
      },
      data: measured.map(({ command, samples }) => ({ command: command.label, args: command.args, samples })),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
