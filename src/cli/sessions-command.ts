// `keelson sessions`: every stored session, oldest first — id, created (ISO), cwd, turns, and a
// preview of the last prompt. Each log is read read-only (regular files only: a FIFO named
// `x.jsonl` never blocks the listing); a foreign or broken file is listed as `unreadable: …`
// and a log written by a newer Keelson as such, instead of stopping the listing.
import { readdir } from "node:fs/promises";
import type { Command } from "commander";
import type { Session, SessionEvent } from "../session/index.js";
import { StoreError } from "../store/index.js";
import { describeError } from "./errors.js";
import { openStore, problemOf } from "./log-source.js";
import { contentText, preview } from "./transcript.js";
import { summaryOf } from "./commands.js";

type Row =
  | { readonly kind: "session"; readonly session: Session }
  | { readonly kind: "unreadable"; readonly name: string; readonly problem: string; readonly code?: string }
  | { readonly kind: "newer"; readonly name: string; readonly problem: string };

export function registerSessions(program: Command): void {
  program
    .command("sessions")
    .description(summaryOf("sessions"))
    .option("--json", "one JSON object per session")
    .action(async (flags: { json?: boolean }) => {
      const store = openStore();
      const names = (await readdir(store.root).catch(() => [] as string[])).filter((n) => n.endsWith(".jsonl")).sort();
      const rows: Row[] = [];
      for (const name of names) {
        const id = name.slice(0, -".jsonl".length);
        try {
          rows.push({ kind: "session", session: (await store.load(id, { readOnly: true })).session });
        } catch (error) {
          if (error instanceof StoreError && error.code === "newer-version")
            rows.push({ kind: "newer", name, problem: problemOf(error) });
          else
            rows.push({
              kind: "unreadable",
              name,
              problem: describeError(error),
              ...(error instanceof StoreError ? { code: error.code } : {}),
            });
        }
      }
      await store.close();
      rows.sort((a, b) => createdOf(a) - createdOf(b));
      if (flags.json === true) {
        for (const row of rows)
          process.stdout.write(`${JSON.stringify(row.kind === "session" ? summary(row.session) : jsonProblem(row))}\n`);
        return;
      }
      if (rows.length === 0) {
        process.stdout.write(`no sessions in ${store.root}\n`);
        return;
      }
      process.stdout.write(`${["id".padEnd(36), "created".padEnd(24), "turns", "cwd", "last prompt"].join("  ")}\n`);
      for (const row of rows) {
        if (row.kind !== "session") {
          const problem = row.kind === "newer" ? row.problem : `unreadable: ${row.problem}`;
          process.stdout.write(`${row.name.padEnd(36)}  ${problem}\n`);
          continue;
        }
        const s = summary(row.session);
        process.stdout.write(
          `${[s.id.padEnd(36), s.created.padEnd(24), String(s.turns).padStart(5), s.cwd ?? "-", JSON.stringify(preview(s.lastPrompt ?? "", 50))].join("  ")}\n`,
        );
      }
    });
}

function jsonProblem(row: Exclude<Row, { kind: "session" }>): Record<string, string> {
  return {
    file: row.name,
    problem: row.problem,
    ...(row.kind === "newer" ? { code: "newer-version" } : row.code === undefined ? {} : { code: row.code }),
  };
}

function createdOf(row: Row): number {
  return row.kind === "session" ? row.session.header.createdAt : Number.MAX_SAFE_INTEGER;
}

function summary(session: Session): {
  id: string;
  created: string;
  cwd?: string;
  turns: number;
  lastPrompt?: string;
  parentSession?: string;
} {
  const last = [...session.events].reverse().find((e): e is SessionEvent<"user/message"> => e.type === "user/message");
  return {
    id: session.id,
    created: new Date(session.header.createdAt).toISOString(),
    ...(session.header.cwd === undefined ? {} : { cwd: session.header.cwd }),
    turns: session.lastTurn,
    ...(last === undefined ? {} : { lastPrompt: contentText(last.data.content) }),
    ...(session.header.parentSession === undefined ? {} : { parentSession: session.header.parentSession }),
  };
}
