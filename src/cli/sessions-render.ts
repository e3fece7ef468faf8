// `keelson sessions`' listings that render rows, loaded by sessions-command.ts when one must be
// (see there): the JSONL text listing patched with the rows the store says changed since the
// kept one (sessions-listing.ts), or rendered whole, and kept for the next listing; `--json`
// (every row, one JSON object each); and the PostgreSQL listing (`store.list()`, one query).
import {
  JsonlSessionStore,
  type ListedLog,
  type LogChanges,
  type SessionDigest,
  type SessionSummary,
  StoreError,
} from "../store/index.js";
import { describeError } from "./errors.js";
import { listingKey } from "./listing-key.js";
import { problemOf } from "./log-source.js";
import {
  type KeptListing,
  type Listing,
  listingOf,
  patchListing,
  type RenderedRow,
  writeListing,
} from "./sessions-listing.js";
import { createdOf, printListing, RENDER_TAG, type Row, rowRenderer } from "./sessions-rows.js";
import { type CliStore, openJsonlStore, openStore } from "./store-target.js";
import { terminalJson, terminalLine, terminalLines } from "./terminal-text.js";
import { preview } from "./transcript.js";

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

/**
 * The text listing from what the store said changed since the kept listing (`kept`, when one
 * was read): only the rows changed since are rendered when it can be patched, else every row.
 * Printed, then kept under the store's generation (the listing key made if there is none yet).
 */
export async function renderText(at: {
  readonly root: string;
  readonly index: boolean;
  /** Where the listing is kept. */
  readonly file: string;
  readonly key: Buffer | undefined;
  readonly kept: KeptListing | undefined;
  readonly changes: LogChanges;
}): Promise<void> {
  const { changes, kept } = at;
  const rowLine = await rowRenderer();
  let listing: Listing | undefined;
  if (changes.kind === "changes" && kept !== undefined) {
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
    const logs = changes.kind === "all" ? changes.logs : await allLogs(at);
    const rows = logs.map(rowOf).sort((a, b) => createdOf(a) - createdOf(b));
    const texts = rows.length === 0 ? [] : terminalLines(rows.map(rowLine)).split("\n");
    listing = listingOf(rows.map((r, i) => ({ name: r.name, created: createdOf(r), text: texts[i]! })));
  }
  printListing(at.root, listing.count, listing.body);
  const { generation } = changes;
  if (generation === undefined) return;
  const sealWith = at.key ?? (await listingKey({ create: true }));
  if (sealWith !== undefined) await writeListing(at.file, { render: RENDER_TAG, generation, ...listing }, sealWith);
}

/** Every row (`listLogs`), when a kept listing could not be patched. */
async function allLogs(target: { readonly root: string; readonly index: boolean }): Promise<ListedLog[]> {
  const store = new JsonlSessionStore(target);
  try {
    return await store.listLogs();
  } finally {
    await store.close();
  }
}

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
