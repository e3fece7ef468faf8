// `keelson sessions`: every stored session, oldest first — id, created (ISO), cwd, turns, and a
// preview of the last prompt. Each log is as a read-only load sees it (regular files only: a FIFO
// named `x.jsonl` never blocks the listing), through the store's summary index (`listLogs`: only
// logs changed since the last listing are read); a foreign or broken file is listed as `unreadable: …`
// and a log written by a newer Keelson as such, instead of stopping the listing. With the
// PostgreSQL store the listing is one query over the sessions table (no log is read): id,
// created, updated, cwd, parent and the first prompt. Prompts, cwds, file names and problems
// are untrusted: escaped for the terminal (terminal-text.ts), JSON lines included. The JSONL
// text listing is kept rendered between runs (sessions-listing.ts) and patched with the rows the
// store says changed since (`listLogChanges`); `--json` lists every row.
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Command } from "commander";
import {
  JsonlSessionStore,
  type ListedLog,
  SESSION_INDEX_DIR,
  type SessionDigest,
  type SessionSummary,
  StoreError,
} from "../store/index.js";
import { describeError } from "./errors.js";
import { listingKey } from "./listing-key.js";
import { type CliStore, openStore, problemOf } from "./log-source.js";
import { preview } from "./transcript.js";
import { commandSummary } from "./commands.js";
import {
  type Listing,
  listingOf,
  patchListing,
  readListing,
  type RenderedRow,
  writeListing,
} from "./sessions-listing.js";
import { terminalJson, terminalLine, terminalLines } from "./terminal-text.js";
import { KEELSON_VERSION } from "./version.js";

type Row =
  | { readonly kind: "session"; readonly name: string; readonly digest: SessionDigest }
  | { readonly kind: "unreadable"; readonly name: string; readonly problem: string; readonly code?: string }
  | { readonly kind: "newer"; readonly name: string; readonly problem: string };

export function registerSessions(program: Command): void {
  program
    .command("sessions")
    .description(commandSummary("sessions"))
    .option("--json", "one JSON object per session")
    .action(async (flags: { json?: boolean }) => {
      const store = await openStore();
      if (!(store instanceof JsonlSessionStore)) return listDatabase(store, flags.json === true);
      if (flags.json !== true) return listText(store);
      const rows = (await store.listLogs()).map(rowOf);
      await store.close();
      rows.sort((a, b) => createdOf(a) - createdOf(b));
      // One write for the whole listing: a write per row costs more than the listing itself at
      // thousands of sessions (a system call each when stdout is a file).
      const lines = rows.map((row) =>
        terminalJson(JSON.stringify(row.kind === "session" ? summary(row.digest) : jsonProblem(row))),
      );
      if (lines.length > 0) process.stdout.write(`${lines.join("\n")}\n`);
    });
}

function rowOf(log: ListedLog): Row {
  const { name } = log;
  if (log.kind === "session") return log; // a row as it is: no copy per session
  if (log.error instanceof StoreError && log.error.code === "newer-version")
    return { kind: "newer", name, problem: problemOf(log.error) };
  return {
    kind: "unreadable",
    name,
    problem: describeError(log.error),
    ...(log.error instanceof StoreError ? { code: log.error.code } : {}),
  };
}

const HEADER = ["id".padEnd(36), "created".padEnd(24), "turns", "cwd", "last prompt"].join("  ");

/** A row's line, before escaping. */
function rowLine(row: Row): string {
  if (row.kind !== "session") {
    const problem = row.kind === "newer" ? row.problem : `unreadable: ${row.problem}`;
    return `${row.name.padEnd(36)}  ${problem}`;
  }
  const d = row.digest;
  const created = new Date(d.createdAt).toISOString().padEnd(24);
  const prompt = JSON.stringify(preview(d.lastPrompt ?? "", 50));
  return `${d.id.padEnd(36)}  ${created}  ${String(d.turns).padStart(5)}  ${d.cwd ?? "-"}  ${prompt}`;
}

/**
 * What a kept listing is valid for: Keelson's version, the listing's format, and the code that
 * renders and escapes a row (an edit to it re-renders every kept listing).
 */
const RENDER_TAG = `${KEELSON_VERSION}/1/${createHash("sha1")
  .update([rowLine, preview, terminalLine, terminalLines].map(String).join("\n"))
  .digest("hex")
  .slice(0, 12)}`;

/**
 * The text listing, patched from the one kept at the last listing (sessions-listing.ts) when the
 * store knows its generation: only the rows changed since are rendered.
 */
async function listText(store: JsonlSessionStore): Promise<void> {
  const file = join(store.root, SESSION_INDEX_DIR, "listing");
  let listing: Listing | undefined;
  let generation: string | undefined;
  const key = await listingKey(); // none yet, or unusable (not private): rendered in full
  try {
    const kept = key === undefined ? undefined : await readListing(file, RENDER_TAG, key);
    const changes = await store.listLogChanges(kept?.generation);
    generation = changes.generation;
    if (changes.kind === "changes" && kept !== undefined) {
      if (changes.changed.length === 0 && changes.removed.length === 0) {
        print(store, kept.count, [kept.body]);
        return; // nothing to keep anew
      }
      const gone = new Set(changes.removed);
      const rendered = changes.changed.map((log): RenderedRow => {
        gone.add(log.name);
        const row = rowOf(log);
        return { name: log.name, created: createdOf(row), text: terminalLine(rowLine(row)) };
      });
      listing = patchListing(kept, rendered, gone);
    }
    if (listing === undefined) {
      // Every row, rendered in one piece (one escape scan of the whole text).
      const logs = changes.kind === "all" ? changes.logs : await store.listLogs();
      const rows = logs.map(rowOf).sort((a, b) => createdOf(a) - createdOf(b));
      const texts = rows.length === 0 ? [] : terminalLines(rows.map(rowLine)).split("\n");
      listing = listingOf(rows.map((r, i) => ({ name: r.name, created: createdOf(r), text: texts[i]! })));
    }
  } finally {
    await store.close();
  }
  // A few writes for the whole listing: a write per row costs more than the listing itself at
  // thousands of sessions (a system call each when stdout is a file).
  print(store, listing.count, listing.body);
  if (generation === undefined) return;
  const sealWith = key ?? (await listingKey({ create: true }));
  if (sealWith !== undefined) await writeListing(file, { render: RENDER_TAG, generation, ...listing }, sealWith);
}

/** The listing: the header and the rows (no copy of the rows' bytes), or that there are none. */
function print(store: JsonlSessionStore, count: number, body: readonly Buffer[]): void {
  if (count === 0) process.stdout.write(`no sessions in ${terminalLine(store.root)}\n`);
  else {
    process.stdout.write(`${terminalLine(HEADER)}\n`);
    for (const piece of body) if (piece.length > 0) process.stdout.write(piece);
  }
}

function jsonProblem(row: Exclude<Row, { kind: "session" }>): Record<string, string> {
  return {
    file: row.name,
    problem: row.problem,
    ...(row.kind === "newer" ? { code: "newer-version" } : row.code === undefined ? {} : { code: row.code }),
  };
}

function createdOf(row: Row): number {
  return row.kind === "session" ? row.digest.createdAt : Number.MAX_SAFE_INTEGER;
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
async function listDatabase(store: CliStore, json: boolean): Promise<void> {
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
