// `keelson sessions`' rows: a listed log as a row, the text header, a row's line (id, created,
// turns, cwd, the last prompt's preview) and the render tag a kept listing is valid for
// (sessions-listing.ts). Loaded by the kept-listing path, which renders no row: the preview
// (transcript.ts, the messages layer) is loaded by `rowRenderer()` before the first row is
// rendered, once per process.
import { createHash } from "node:crypto";
import { type ListedLog, type SessionDigest, StoreError } from "../store/listing.js";
import { describeError, problemOf } from "./errors.js";
import { terminalLine, terminalLines } from "./terminal-text.js";
import { KEELSON_VERSION } from "./version.js";

/** A listed log as the text and `--json` listings show it. */
export type Row =
  | { readonly kind: "session"; readonly name: string; readonly digest: SessionDigest }
  | { readonly kind: "unreadable"; readonly name: string; readonly problem: string; readonly code?: string }
  | { readonly kind: "newer"; readonly name: string; readonly problem: string };

/** A listed log as a row: a session's as it is (no copy per session), or its problem. */
export function rowOf(log: ListedLog): Row {
  const { name } = log;
  if (log.kind === "session") return log;
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

let preview: ((text: string, max?: number) => string) | undefined;

/** `rowLine`, once the prompt preview it uses is loaded. */
export async function rowRenderer(): Promise<(row: Row) => string> {
  preview ??= (await import("./transcript.js")).preview;
  return rowLine;
}

/** A row's line, before escaping (`rowRenderer` first). */
function rowLine(row: Row): string {
  if (row.kind !== "session") {
    const problem = row.kind === "newer" ? row.problem : `unreadable: ${row.problem}`;
    return `${row.name.padEnd(36)}  ${problem}`;
  }
  const d = row.digest;
  const created = new Date(d.createdAt).toISOString().padEnd(24);
  const prompt = JSON.stringify(preview!(d.lastPrompt ?? "", 50));
  return `${d.id.padEnd(36)}  ${created}  ${String(d.turns).padStart(5)}  ${d.cwd ?? "-"}  ${prompt}`;
}

/**
 * What a kept listing is valid for: Keelson's version, the listing's format, and the code that
 * renders and escapes a row (an edit to it re-renders every kept listing).
 */
export const RENDER_TAG = `${KEELSON_VERSION}/1/${createHash("sha1")
  .update([rowLine, rowRenderer, terminalLine, terminalLines].map(String).join("\n"))
  .digest("hex")
  .slice(0, 12)}`;

/** Where a row sorts: by created (a problem row last), then by file name. */
export function createdOf(row: Row): number {
  return row.kind === "session" ? row.digest.createdAt : Number.MAX_SAFE_INTEGER;
}

/** Prints a listing: the header and the rows (no copy of the rows' bytes), or that there are none. */
export function printListing(root: string, count: number, body: readonly Buffer[]): void {
  // A few writes for the whole listing: a write per row costs more than the listing itself at
  // thousands of sessions (a system call each when stdout is a file).
  if (count === 0) process.stdout.write(`no sessions in ${terminalLine(root)}\n`);
  else {
    process.stdout.write(`${terminalLine(HEADER)}\n`);
    for (const piece of body) if (piece.length > 0) process.stdout.write(piece);
  }
}
