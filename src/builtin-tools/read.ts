// `read`: a text file with line numbers (`cat -n` style), optionally a range of lines. Directories,
// special files and binary files (a NUL byte in the first 8 KiB) are refused. The file is opened
// race-free (safe-open) and streamed in chunks: reading stops once the range is shown or the
// output cap is well past, so memory is bounded by the cap, not the file. Past the range, the
// remaining lines are counted only within the next COUNT_AHEAD_BYTES; beyond that the hint says
// "more lines follow" without a count.
import type { FileHandle } from "node:fs/promises";
import { defineTool, jsonSchema } from "../tools/index.js";
import { capOutput, DEFAULT_OUTPUT_CAP, reportFailures } from "./output.js";
import { openForRead } from "./safe-open.js";
import { type BuiltinToolOptions, ToolFailure } from "./types.js";

const DEFAULT_LIMIT = 2000;
const CHUNK_BYTES = 64 * 1024;
const BINARY_SNIFF_BYTES = 8192;
/** How far past the shown range `read` looks to count the lines that remain. */
const COUNT_AHEAD_BYTES = 8 * 1024 * 1024;
/** Bytes kept past the cap so the truncation marker can usually give an exact count. */
const EXACT_MARKER_SLACK_BYTES = 1024 * 1024;

const input = jsonSchema<{ path: string; offset?: number; limit?: number }>({
  type: "object",
  properties: {
    path: { type: "string", description: "File to read, relative to the workspace root" },
    offset: { type: "integer", minimum: 1, description: "First line to show (1-based)" },
    limit: { type: "integer", minimum: 1, description: `How many lines to show (default ${DEFAULT_LIMIT})` },
  },
  required: ["path"],
});

export function readTool({ workspace, outputCap = DEFAULT_OUTPUT_CAP }: BuiltinToolOptions) {
  return defineTool({
    name: "read",
    readOnly: true,
    description: "Read a text file from the workspace. Lines are numbered; use offset and limit for a range of lines.",
    input,
    execute: ({ path, offset = 1, limit = DEFAULT_LIMIT }) =>
      reportFailures(async () => {
        const file = await openForRead(workspace, path);
        try {
          // Stored bytes past this point are never shown: chars ≥ bytes / 3 in UTF-8.
          const budget = 3 * outputCap + EXACT_MARKER_SLACK_BYTES;
          const window = await readLineWindow(file.handle, offset, limit, budget, path);
          if (window.kind === "empty") return `${path} is empty`;
          if (window.kind === "past-end")
            throw new ToolFailure("bad-range", `offset ${offset} is past the end of ${path} (${window.lines} lines)`);
          const shown = window.lines.map((line, i) => `${String(offset + i).padStart(6)}\t${line}`);
          const next = offset + window.lines.length;
          if (window.kind === "cut") return cutOutput(shown.join("\n"), outputCap);
          if (window.remaining === "unknown") shown.push(`[… more lines follow; continue with offset ${next} …]`);
          else if (window.remaining > 0)
            shown.push(`[… ${window.remaining} more lines; continue with offset ${next} …]`);
          return capOutput(shown.join("\n"), outputCap);
        } finally {
          await file.handle.close();
        }
      }),
  });
}

/** What `readLineWindow` found. */
type LineWindow =
  | { readonly kind: "empty" }
  | { readonly kind: "past-end"; readonly lines: number }
  /** The range, and how many lines follow it (`unknown` past COUNT_AHEAD_BYTES). */
  | { readonly kind: "range"; readonly lines: readonly string[]; readonly remaining: number | "unknown" }
  /** Reading stopped at the byte budget: `lines` (the last one possibly partial) exceed the cap. */
  | { readonly kind: "cut"; readonly lines: readonly string[] };

/**
 * Lines `offset`…`offset + limit - 1` of the file (text after the last `\n` counts as a line;
 * `\r\n` ends a line like `\n`), read in chunks from the start. Lines before the range are
 * skipped without being kept; at most `budget` bytes of the range are kept.
 */
async function readLineWindow(
  handle: FileHandle,
  offset: number,
  limit: number,
  budget: number,
  shown: string,
): Promise<LineWindow> {
  const last = offset - 1 + limit;
  const lines: string[] = [];
  let pending: Buffer[] = [];
  let kept = 0;
  let line = 1;
  let position = 0;
  let endsWithNewline = false;
  for (;;) {
    const chunk = await readChunk(handle, position);
    if (chunk.length === 0) break;
    if (position < BINARY_SNIFF_BYTES && chunk.subarray(0, BINARY_SNIFF_BYTES - position).includes(0))
      throw new ToolFailure("binary-file", `${shown} looks binary (it contains NUL bytes); read shows text files only`);
    position += chunk.length;
    endsWithNewline = chunk[chunk.length - 1] === 0x0a;
    for (let start = 0; start < chunk.length; ) {
      const newline = chunk.indexOf(0x0a, start);
      const stop = newline === -1 ? chunk.length : newline;
      if (line >= offset) {
        pending.push(chunk.subarray(start, stop));
        kept += stop - start;
      }
      if (newline === -1) break;
      if (line >= offset) {
        lines.push(decodeLine(pending, true));
        pending = [];
      }
      line += 1;
      start = newline + 1;
      if (line > last) {
        const remaining = await countRemainingLines(handle, chunk.subarray(start), position);
        return { kind: "range", lines, remaining };
      }
    }
    if (kept > budget) {
      if (pending.length > 0) lines.push(decodeLine(pending, false));
      return { kind: "cut", lines };
    }
  }
  if (position === 0) return { kind: "empty" };
  if (!endsWithNewline) {
    // The text after the last newline is a line of its own.
    if (line >= offset) lines.push(decodeLine(pending, false));
    line += 1;
  }
  const total = line - 1;
  if (offset > total) return { kind: "past-end", lines: total };
  return { kind: "range", lines, remaining: 0 };
}

/** A line's bytes as text; a complete line (ended by `\n`) drops the `\r` of a `\r\n`. */
function decodeLine(parts: readonly Buffer[], complete: boolean): string {
  const text = Buffer.concat(parts).toString("utf8");
  return complete && text.endsWith("\r") ? text.slice(0, -1) : text;
}

/**
 * The lines after the range — `rest` (the unread tail of the current chunk) and the file from
 * `position` — counted within COUNT_AHEAD_BYTES; `unknown` when the file goes on past that.
 */
async function countRemainingLines(handle: FileHandle, rest: Buffer, position: number): Promise<number | "unknown"> {
  let newlines = 0;
  let seen = 0;
  let lastByte = 0x0a;
  for (let chunk = rest, at = position; ; ) {
    seen += chunk.length;
    if (seen > COUNT_AHEAD_BYTES) return "unknown";
    if (chunk.length > 0) lastByte = chunk[chunk.length - 1] as number;
    for (let found = chunk.indexOf(0x0a); found !== -1; found = chunk.indexOf(0x0a, found + 1)) newlines += 1;
    chunk = await readChunk(handle, at);
    if (chunk.length === 0) return newlines + (lastByte === 0x0a ? 0 : 1);
    at += chunk.length;
  }
}

async function readChunk(handle: FileHandle, position: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
  return buffer.subarray(0, bytesRead);
}

/**
 * Output whose range was not read to its end (the budget ran out): cut at the cap like
 * `capOutput`, but the count of characters left is a lower bound, and says so.
 */
function cutOutput(text: string, cap: number): string {
  let end = Math.min(cap, text.length);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}\n[… output truncated: more than ${text.length - end} more characters …]`;
}
