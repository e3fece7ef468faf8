// The session summary index file (`<sessions dir>/.sessions-index/sessions.json`): what the JSONL store
// learned about each log the last time it looked, keyed by the log file's identity (dev, ino,
// size, mtime), so a listing reads only the logs that changed since. It is a cache, never the
// source of truth: the reader (session-index.ts) uses an entry only while the log still has the
// recorded identity. This module owns the file format, its tolerant read (a missing, torn,
// foreign or garbled file reads as an empty index: everything is rebuilt) and its atomic write
// (a private temp file renamed into place: two processes writing at once leave one whole index,
// never a mix). Nothing here is fsynced: a crash can lose or truncate the index, never a log.
// The index sits in a subdirectory so that writing it does not change the sessions directory's
// mtime, which the reader compares (session-index.ts).
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { FileIdentity } from "./load-cache.js";
import { readLogFile } from "./read-log-file.js";
import { REFERENCING_LOG_VERSION } from "./seed-reference.js";
import type { StoreFileSystem } from "./store-file-system.js";
import type { StoreErrorCode } from "./types.js";

/** The index's directory in the sessions directory (not `*.jsonl`: never taken for a log). */
export const INDEX_DIR = ".sessions-index";
/** The index file, relative to the sessions directory. */
export const INDEX_FILE = join(INDEX_DIR, "sessions.json");
const FORMAT = "keelson-session-index";
/** Bumped whenever what an entry holds, or how it is computed, changes: an older index is rebuilt. */
const INDEX_VERSION = 1;
/** An index larger than this is not read (rebuilt instead). */
const MAX_INDEX_BYTES = 256 * 1024 * 1024;

/** What a log's header says, as `list()` reports it (no `updatedAt`: that is the file's mtime, always current). */
export interface HeaderFacts {
  readonly id: string;
  readonly createdAt: number;
  readonly cwd?: string;
  readonly parentSession?: string;
}

/** What a full read-only load of a log gave: its listing row. */
export interface LogDigest extends HeaderFacts {
  /** The last turn's number (`Session.lastTurn`). */
  readonly turns: number;
  readonly events: number;
  /** Whether the last turn is open (a writable load would repair it). */
  readonly open: boolean;
  /** The text of the last `user/message` (`contentText`), when there is one. */
  readonly lastPrompt?: string;
}

/** Why a full load refused the log (a `StoreError`'s fields). */
export interface LogProblem {
  readonly code: StoreErrorCode;
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
}

/** A log whose file another log's load reads (a fork stored by reference), and its identity then (null: absent). */
export interface Dependency {
  readonly name: string;
  readonly identity: FileIdentity | null;
}

/**
 * One log, as stored (the on-disk shape: one flat object per log). Its identity fields are the
 * file's when the rest was computed; `header` and (`digest` or `problem`) are filled lazily, by
 * `list()` and `listLogs()` respectively.
 */
export interface IndexEntry extends FileIdentity {
  /** The log's file name in the sessions directory (`<id>.jsonl`). */
  readonly name: string;
  /** `list()`'s view: the header's facts, or null when `list()` skips the file (foreign, broken, newer). */
  readonly header?: HeaderFacts | null;
  /** `listLogs()`'s view of a readable log (valid while `deps` are unchanged too). */
  readonly digest?: LogDigest;
  /** `listLogs()`'s view of a log a load refuses (valid while `deps` are unchanged too). */
  readonly problem?: LogProblem;
  /** For `digest` / `problem`: the logs the load read the seed from (a fork stored by reference). */
  readonly deps?: readonly Dependency[];
}

/**
 * The sessions directory's identity when every log's identity was last read from the file system
 * (`verifiedAt`, ms since epoch, taken before the directory was stat'ed).
 */
export interface VerifiedDirectory {
  readonly dev: number;
  readonly ino: number;
  readonly mtimeMs: number;
  readonly verifiedAt: number;
}

export interface StoredIndex {
  readonly entries: Map<string, IndexEntry>;
  readonly directory: VerifiedDirectory | undefined;
}

/** The index in `root` for a store reading logs up to `maxLogBytes`; empty when there is no usable index. */
export async function readIndex(fs: StoreFileSystem, root: string, maxLogBytes: number): Promise<StoredIndex> {
  const entries = new Map<string, IndexEntry>();
  const none = { entries, directory: undefined };
  let raw: unknown;
  try {
    raw = JSON.parse((await readLogFile(fs, join(root, INDEX_FILE), MAX_INDEX_BYTES)).toString("utf8"));
  } catch {
    return none; // missing, not a regular file, too large, torn or not JSON: rebuilt
  }
  if (!isRecord(raw) || raw.format !== FORMAT || raw.version !== INDEX_VERSION) return none;
  if (raw.reads !== REFERENCING_LOG_VERSION || raw.maxLogBytes !== maxLogBytes || !Array.isArray(raw.entries))
    return none;
  for (const value of raw.entries) if (isEntry(value)) entries.set(value.name, value);
  const d = raw.directory;
  const directory =
    isRecord(d) && isNumber(d.dev) && isNumber(d.ino) && isNumber(d.mtimeMs) && isNumber(d.verifiedAt)
      ? { dev: d.dev, ino: d.ino, mtimeMs: d.mtimeMs, verifiedAt: d.verifiedAt }
      : undefined;
  return { entries, directory };
}

/**
 * Writes `entries` (newest log first) as the index in `root`: a private temp file renamed over
 * the index. Best effort: a failure (read-only directory, full disk) leaves the previous index,
 * or none, and no temp file; the listing does not fail for it.
 */
export async function writeIndex(
  fs: StoreFileSystem,
  root: string,
  maxLogBytes: number,
  entries: readonly IndexEntry[],
  directory: VerifiedDirectory | undefined,
): Promise<void> {
  const file = join(root, INDEX_FILE);
  const temp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  await fs.mkdir(join(root, INDEX_DIR), { recursive: true }).catch(() => undefined);
  const text = JSON.stringify({
    format: FORMAT,
    version: INDEX_VERSION,
    reads: REFERENCING_LOG_VERSION,
    maxLogBytes,
    ...(directory === undefined ? {} : { directory }),
    entries,
  });
  try {
    const handle = await fs.open(temp, "wx");
    try {
      await handle.writeFile(`${text}\n`);
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch {
    await fs.unlink(temp).catch(() => undefined);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isOptionalString = (v: unknown): boolean => v === undefined || typeof v === "string";

// The checks below allocate nothing (an index holds one entry per log, read on every listing):
// an entry is used as parsed once every field a reader takes has its type. Readers copy the
// fields they hand on, so nothing else a hand-edited file holds comes along.

const isIdentity = (v: Record<string, unknown>): boolean =>
  isNumber(v.dev) && isNumber(v.ino) && isNumber(v.size) && isNumber(v.mtimeMs);

const isHeaderFacts = (v: unknown): v is HeaderFacts =>
  isRecord(v) &&
  typeof v.id === "string" &&
  isNumber(v.createdAt) &&
  isOptionalString(v.cwd) &&
  isOptionalString(v.parentSession);

const isDigest = (v: unknown): v is LogDigest =>
  isHeaderFacts(v) &&
  isNumber((v as unknown as Record<string, unknown>).turns) &&
  isNumber((v as unknown as Record<string, unknown>).events) &&
  typeof (v as unknown as Record<string, unknown>).open === "boolean" &&
  isOptionalString((v as unknown as Record<string, unknown>).lastPrompt);

const isProblem = (v: unknown): v is LogProblem =>
  isRecord(v) &&
  typeof v.code === "string" &&
  typeof v.message === "string" &&
  isOptionalString(v.file) &&
  (v.line === undefined || isNumber(v.line));

const isDependency = (v: unknown): v is Dependency =>
  isRecord(v) &&
  typeof v.name === "string" &&
  (v.identity === null || (isRecord(v.identity) && isIdentity(v.identity)));

/** Whether a parsed value is a well-formed entry (else it is dropped, and its log re-read). */
function isEntry(v: unknown): v is IndexEntry {
  if (!isRecord(v) || typeof v.name !== "string" || !v.name.endsWith(".jsonl") || !isIdentity(v)) return false;
  if (!(v.header === undefined || v.header === null || isHeaderFacts(v.header))) return false;
  if (!(v.digest === undefined || isDigest(v.digest))) return false;
  if (!(v.problem === undefined || isProblem(v.problem))) return false;
  return v.deps === undefined || (Array.isArray(v.deps) && v.deps.every(isDependency));
}
