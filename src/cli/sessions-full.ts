// `keelson sessions --json` over the JSONL store (every row, one JSON object a line) and the
// PostgreSQL listing (`store.list()`: one query, no log read), loaded by sessions-command.ts for
// those: the store opened in full (store-target.ts).
import type { SessionDigest, SessionSummary } from "../store/index.js";
import { createdOf, type Row, rowOf } from "./sessions-rows.js";
import { type CliStore, openJsonlStore, openStore } from "./store-target.js";
import { terminalJson, terminalLine } from "./terminal-text.js";
import { preview } from "./transcript.js";

/** `--json` over the JSONL store: every row, one JSON object a line, oldest first. */
export async function listJson(): Promise<void> {
  const store = openJsonlStore();
  let rows: Row[];
  try {
    rows = (await store.listLogs()).map(rowOf);
  } finally {
    await store.close();
  }
  rows.sort((a, b) => createdOf(a) - createdOf(b));
  // One write for the whole listing: a write per row costs more than the listing itself at
  // thousands of sessions (a system call each when stdout is a file).
  const lines = rows.map((row) =>
    terminalJson(JSON.stringify(row.kind === "session" ? summary(row.digest) : jsonProblem(row))),
  );
  if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
}

function jsonProblem(row: Exclude<Row, { kind: "session" }>): Record<string, string> {
  return {
    file: row.name,
    problem: row.problem,
    ...(row.kind === "newer" ? { code: "newer-version" } : row.code === undefined ? {} : { code: row.code }),
  };
}

function summary(digest: SessionDigest): {
  id: string;
  created: string;
  cwd?: string;
  turns: number;
  lastPrompt?: string;
  parentSession?: string;
} {
  return {
    id: digest.id,
    created: new Date(digest.createdAt).toISOString(),
    ...(digest.cwd === undefined ? {} : { cwd: digest.cwd }),
    turns: digest.turns,
    ...(digest.lastPrompt === undefined ? {} : { lastPrompt: digest.lastPrompt }),
    ...(digest.parentSession === undefined ? {} : { parentSession: digest.parentSession }),
  };
}

/** The PostgreSQL listing: `store.list()` only (one query, whatever the number of sessions). */
export async function listDatabase(json: boolean): Promise<void> {
  const store: CliStore = await openStore();
  let sessions: SessionSummary[];
  try {
    sessions = await store.list();
  } finally {
    await store.close().catch(() => undefined);
  }
  if (json) {
    for (const s of sessions)
      process.stdout.write(
        `${terminalJson(
          JSON.stringify({
            id: s.id,
            created: new Date(s.createdAt).toISOString(),
            updated: new Date(s.updatedAt).toISOString(),
            ...(s.cwd === undefined ? {} : { cwd: s.cwd }),
            ...(s.parentSession === undefined ? {} : { parentSession: s.parentSession }),
            ...(s.title === undefined ? {} : { firstPrompt: s.title }),
          }),
        )}\n`,
      );
    return;
  }
  if (sessions.length === 0) {
    process.stdout.write(`no sessions in ${terminalLine(store.label)}\n`);
    return;
  }
  const lines = [["id".padEnd(36), "created".padEnd(24), "updated".padEnd(24), "cwd", "first prompt"].join("  ")];
  for (const s of sessions)
    lines.push(
      [
        s.id.padEnd(36),
        new Date(s.createdAt).toISOString().padEnd(24),
        new Date(s.updatedAt).toISOString().padEnd(24),
        s.cwd ?? "-",
        JSON.stringify(preview(s.title ?? "", 50)) +
          (s.parentSession === undefined ? "" : `  (fork of ${s.parentSession})`),
      ].join("  "),
    );
  process.stdout.write(`${lines.map(terminalLine).join("\n")}\n`);
}
