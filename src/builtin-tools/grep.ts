// `grep`: lines matching a JavaScript regular expression, as `file:line: text`, in a file or
// under a directory (optionally only files matching a glob: against the file name when the glob
// has no `/`, else against the path relative to `path`). Regular files only, each opened through
// safe-open (a FIFO or device is never opened for reading, so it cannot block). The matching runs
// in a worker (regex-search.ts) under the tool's signal and a per-call deadline, so a
// catastrophic pattern cannot freeze the event loop. Files not searched (binary, over 10 MB,
// unreadable) are named at the end of the answer; hidden paths (path-guard.ts) are not walked at all.
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { defineTool, jsonSchema } from "../tools/index.js";
import { compileGlob } from "./glob-match.js";
import { capOutput, DEFAULT_OUTPUT_CAP, errorOutput, reportFailures } from "./output.js";
import { type FileMatches, RegexSearch } from "./regex-search.js";
import { openForRead } from "./safe-open.js";
import { type BuiltinToolOptions, ToolFailure } from "./types.js";
import type { Workspace } from "./workspace.js";
import { type WalkedFile, walkFiles } from "./walk.js";

export const MAX_GREP_MATCHES = 500;
/** Files larger than this are skipped (and named in the answer). */
export const MAX_GREP_FILE_BYTES = 10 * 1024 * 1024;
/** A grep call is stopped after this long whatever the tool timeout (see GrepToolOptions). */
export const GREP_DEADLINE_MS = 60_000;
const MAX_LINE = 500;
/** Skipped files named in the answer; the rest are counted. */
const MAX_SKIPPED_NAMES = 5;
/** Files read ahead of the worker: bounds memory while reading overlaps matching. */
const MAX_IN_FLIGHT_FILES = 64;
const MAX_IN_FLIGHT_CHARS = 32 * 1024 * 1024;
const MEGABYTE = 1024 * 1024;

export interface GrepToolOptions extends BuiltinToolOptions {
  /** Milliseconds after which a call is stopped and answers with an error. Default GREP_DEADLINE_MS. */
  readonly deadlineMs?: number;
}

const input = jsonSchema<{ pattern: string; path?: string; glob?: string }>({
  type: "object",
  properties: {
    pattern: { type: "string", minLength: 1, description: "JavaScript regular expression, matched per line" },
    path: { type: "string", description: "File or directory to search (default: the workspace root)" },
    glob: { type: "string", description: "Only files matching this glob, e.g. *.ts or src/**/*.ts" },
  },
  required: ["pattern"],
});

export function grepTool({
  workspace,
  outputCap = DEFAULT_OUTPUT_CAP,
  deadlineMs = GREP_DEADLINE_MS,
}: GrepToolOptions) {
  return defineTool({
    name: "grep",
    readOnly: true,
    description:
      "Search file contents with a JavaScript regular expression; prints file:line: text. Skips .git, node_modules and binary files.",
    input,
    execute: ({ pattern, path = ".", glob }, { signal }) =>
      reportFailures(async () => {
        const regex = compile(pattern);
        const filter = glob === undefined ? undefined : compileGlob(glob);
        const byName = glob !== undefined && !glob.includes("/");
        const target = await workspace.resolve(path);
        const directory = (await stat(target)).isDirectory();
        const deadline = new AbortController();
        const timer = setTimeout(() => deadline.abort(), deadlineMs);
        const stop = AbortSignal.any([signal, deadline.signal]);
        const search = new RegexSearch(regex, { signal: stop, maxLine: MAX_LINE, maxMatches: MAX_GREP_MATCHES });
        try {
          const files: AsyncIterable<WalkedFile> | WalkedFile[] = directory
            ? walkFiles(target, { signal: stop, skip: await workspace.guard.hiddenBelow(target) })
            : [{ path: target, relative: basename(target) }];
          const found = await searchFiles(files, {
            workspace,
            search,
            stop,
            accepts: (file) => filter === undefined || filter.matches(byName ? basename(file.relative) : file.relative),
            // The named file's refusals (a FIFO, a directory…) are the answer; under a directory
            // a file that cannot be opened is skipped and named.
            open: directory ? (file) => load(workspace, file.path).catch(asSkip) : () => load(workspace, path),
          });
          return answer(pattern, found, outputCap);
        } catch (error) {
          if (signal.aborted) return errorOutput(`grep was aborted: ${describe(signal.reason)}`);
          if (deadline.signal.aborted) throw stoppedByDeadline(pattern, deadlineMs, search.interrupted);
          throw error;
        } finally {
          clearTimeout(timer);
          await search.close();
        }
      }),
  });
}

function compile(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch {
    try {
      return new RegExp(pattern);
    } catch (error) {
      throw new ToolFailure("bad-pattern", `invalid regular expression /${pattern}/: ${(error as Error).message}`);
    }
  }
}

/** A file's text, or why it is not searched. */
type Loaded = { readonly text: string } | { readonly skipped: string };

interface Skipped {
  readonly name: string;
  readonly reason: string;
}

interface Found {
  readonly lines: string[];
  total: number;
  readonly skipped: Skipped[];
}

interface SearchContext {
  readonly workspace: Workspace;
  readonly search: RegexSearch;
  readonly stop: AbortSignal;
  accepts(file: WalkedFile): boolean;
  open(file: WalkedFile): Promise<Loaded>;
}

/** Reads the accepted files in walk order, a bounded number ahead of the worker matching them. */
async function searchFiles(files: AsyncIterable<WalkedFile> | WalkedFile[], context: SearchContext): Promise<Found> {
  const found: Found = { lines: [], total: 0, skipped: [] };
  const inFlight: { name: string; chars: number; matches: Promise<FileMatches> }[] = [];
  let chars = 0;
  const settleOldest = async (): Promise<void> => {
    const { name, chars: sent, matches } = inFlight.shift()!;
    chars -= sent;
    const { count, lines } = await matches;
    found.total += count;
    for (const { line, text } of lines) found.lines.push(`${name}:${line}: ${text}`);
  };
  for await (const file of files) {
    context.stop.throwIfAborted();
    if (!context.accepts(file)) continue;
    const name = context.workspace.display(file.path);
    const loaded = await context.open(file);
    if ("skipped" in loaded) {
      found.skipped.push({ name, reason: loaded.skipped });
      continue;
    }
    inFlight.push({ name, chars: loaded.text.length, matches: context.search.search(name, loaded.text) });
    chars += loaded.text.length;
    while (inFlight.length > MAX_IN_FLIGHT_FILES || chars > MAX_IN_FLIGHT_CHARS) await settleOldest();
  }
  context.stop.throwIfAborted(); // the walk ends early on abort
  while (inFlight.length > 0) await settleOldest();
  return found;
}

/** Opens `path` as a regular file inside the workspace (safe-open) and reads it unless skipped. */
async function load(workspace: Workspace, path: string): Promise<Loaded> {
  const { handle, stat: info } = await openForRead(workspace, path);
  try {
    if (info.size > MAX_GREP_FILE_BYTES)
      return { skipped: `${megabytes(info.size)} MB, over the ${MAX_GREP_FILE_BYTES / MEGABYTE} MB limit` };
    // Read what fstat announced and no more: a file growing meanwhile cannot exceed the limit.
    const bytes = Buffer.alloc(info.size);
    let length = 0;
    while (length < bytes.length) {
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    const content = bytes.subarray(0, length);
    if (content.subarray(0, 8192).includes(0)) return { skipped: "binary" };
    return { text: content.toString("utf8") };
  } finally {
    await handle.close();
  }
}

/** Why a file found by the walk could not be opened, as a skip; anything else is rethrown. */
function asSkip(error: unknown): Loaded {
  if (error instanceof ToolFailure) {
    if (error.code === "outside-workspace") return { skipped: "outside the workspace" };
    if (error.code === "hidden-path") return { skipped: "hidden" };
    if (error.code === "not-a-file" || error.code === "not-a-regular-file") return { skipped: "not a regular file" };
    return { skipped: error.code };
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return { skipped: `unreadable: ${code}` };
  throw error;
}

/** Megabytes rounded up to one decimal, so a file just over the limit does not read as at it. */
function megabytes(bytes: number): string {
  return String(Math.ceil((bytes / MEGABYTE) * 10) / 10);
}

function answer(pattern: string, { lines, total, skipped }: Found, outputCap: number): string {
  const notice = skippedNotice(skipped);
  const body =
    total === 0
      ? `No matches for /${pattern}/`
      : capOutput(
          total > MAX_GREP_MATCHES
            ? [...lines, `[… ${total - MAX_GREP_MATCHES} more matches; narrow the pattern or path …]`].join("\n")
            : lines.join("\n"),
          outputCap,
        );
  // After the cap, so the model always learns what was not searched.
  return notice === undefined ? body : `${body}\n${notice}`;
}

/** `[skipped N files: name (reason), …]`, at most MAX_SKIPPED_NAMES named. */
function skippedNotice(skipped: readonly Skipped[]): string | undefined {
  if (skipped.length === 0) return undefined;
  const named = skipped.slice(0, MAX_SKIPPED_NAMES).map(({ name, reason }) => `${name} (${reason})`);
  const more = skipped.length - named.length;
  return `[skipped ${skipped.length} ${skipped.length === 1 ? "file" : "files"}: ${named.join(", ")}${more > 0 ? ` and ${more} more` : ""}]`;
}

function stoppedByDeadline(pattern: string, deadlineMs: number, file: string | undefined): ToolFailure {
  return new ToolFailure(
    "bad-pattern",
    file === undefined
      ? `grep stopped after ${deadlineMs} ms without finishing; narrow the path or glob`
      : `grep stopped after ${deadlineMs} ms matching /${pattern}/ against ${file}: the pattern may backtrack catastrophically (nested quantifiers such as (a+)+); simplify it or narrow the path`,
  );
}

function describe(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return reason === undefined ? "cancelled" : String(reason);
}
