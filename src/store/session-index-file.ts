// The session summary index file (`<sessions dir>/.sessions-index/index.json`): what the JSONL
// store learned about each log the last time it looked, keyed by the log file's identity (dev,
// ino, size, mtime), so a listing reads only the logs that changed since. It is a cache, never the
// source of truth: the reader (session-index.ts) uses an entry only while the log still has the
// recorded identity. This module owns the file format, its tolerant read (a missing, torn,
// foreign or garbled file reads as an empty index: everything is rebuilt; a malformed value
// drops that log's entry alone) and its atomic write (a private temp file renamed into place: two
// processes writing at once leave one whole index, never a mix). Nothing here is fsynced: a crash
// can lose or truncate the index, never a log.
//
// Format (version 2, decision record 0029): three lines of JSON. Line 1, the facts about the
// index (format, version, the log version and size limit it was built for, the journal mark, when
// every log was last stat'ed). Line 2, the heads: per log, in columns (one array per field,
// newest log first), its name, identity and header facts — all `list()` and `resume --last` parse.
// Line 3, the details: per log (same order), the read-only load's result, with the last prompt
// kept as a short preview. Columns keep the parse cheap (numbers land in flat arrays, no object
// per log); `list()` does not decode line 3 at all.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { JournalMark } from "./session-index-journal.js";
import type { FileIdentity } from "./load-cache.js";
import { readLogFile } from "./read-log-file.js";
import { REFERENCING_LOG_VERSION } from "./seed-reference.js";
import type { StoreFileSystem } from "./store-file-system.js";
import type { StoreErrorCode } from "./types.js";

/** The index's directory in the sessions directory (not `*.jsonl`: never taken for a log). */
export const INDEX_DIR = ".sessions-index";
/** The index file, relative to the sessions directory (version 1 was `sessions.json`, now ignored). */
export const INDEX_FILE = join(INDEX_DIR, "index.json");
const FORMAT = "keelson-session-index";
/** Bumped whenever what an entry holds, or how it is computed, changes: an older index is rebuilt. */
const INDEX_VERSION = 2;
/** An index larger than this is not read (rebuilt instead). */
const MAX_INDEX_BYTES = 256 * 1024 * 1024;
const LOG_SUFFIX = ".jsonl";

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
  /** The last `user/message`'s text (`contentText`) as a preview (`previewText`, `LAST_PROMPT_CHARS`), when there is one. */
  readonly lastPrompt?: string;
}

/** A readable log's listing row (`JsonlSessionStore.listLogs`). */
export interface SessionDigest extends LogDigest {
  /** The log file's mtime (ms since epoch). */
  readonly updatedAt: number;
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
 * One log, in memory. Its identity fields are the file's when the rest was computed; `header`
 * and (`digest` or `problem`) are filled lazily, by `list()` and `listLogs()` respectively.
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

export interface StoredIndex {
  readonly entries: Map<string, IndexEntry>;
  /** Where the index stands in the release journal (session-index-journal.ts). */
  readonly journal: JournalMark | undefined;
  /** When every log was last stat'ed (ms since epoch, taken before the directory was listed). */
  readonly verifiedAt: number | undefined;
  /** Adds the load results to `entries` (once; later calls do nothing). */
  readonly details: () => void;
}

/** The on-disk line 1. */
interface Facts {
  readonly format: string;
  readonly version: number;
  readonly reads: number;
  readonly maxLogBytes: number;
  readonly count: number;
  readonly verifiedAt?: number;
  readonly journal?: JournalMark;
}

/**
 * The index in `root` for a store reading logs up to `maxLogBytes`; empty when there is no
 * usable index. The entries have their identity and header facts; `details()` adds the load
 * results (line 3, decoded on the first call only: `list()` does not need them, unless it
 * rewrites the index).
 */
export async function readIndex(fs: StoreFileSystem, root: string, maxLogBytes: number): Promise<StoredIndex> {
  const entries = new Map<string, IndexEntry>();
  const none: StoredIndex = { entries, journal: undefined, verifiedAt: undefined, details: () => undefined };
  try {
    const bytes = await readLogFile(fs, join(root, INDEX_FILE), MAX_INDEX_BYTES);
    const first = bytes.indexOf(0x0a);
    const second = first < 0 ? -1 : bytes.indexOf(0x0a, first + 1);
    const third = second < 0 ? -1 : bytes.indexOf(0x0a, second + 1);
    if (third < 0) return none; // torn
    const facts: unknown = JSON.parse(bytes.toString("utf8", 0, first));
    if (!isRecord(facts) || facts.format !== FORMAT || facts.version !== INDEX_VERSION) return none;
    if (facts.reads !== REFERENCING_LOG_VERSION || facts.maxLogBytes !== maxLogBytes || !isCount(facts.count))
      return none;
    const count = facts.count;
    const decoded = decodeHeads(JSON.parse(bytes.toString("utf8", first + 1, second)), count);
    for (const entry of decoded) if (entry !== undefined && !entries.has(entry.name)) entries.set(entry.name, entry);
    let pending = true;
    const details = (): void => {
      if (!pending) return;
      pending = false;
      try {
        decodeDetails(JSON.parse(bytes.toString("utf8", second + 1, third)), count, decoded);
      } catch {
        // not JSON: no load result is kept, every log is loaded again
      }
    };
    return {
      entries,
      journal: isMark(facts.journal) ? facts.journal : undefined,
      verifiedAt: isNumber(facts.verifiedAt) ? facts.verifiedAt : undefined,
      details,
    };
  } catch {
    return none; // missing, not a regular file, too large, torn or not JSON: rebuilt
  }
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
  state: { readonly journal: JournalMark | undefined; readonly verifiedAt: number | undefined },
): Promise<void> {
  const file = join(root, INDEX_FILE);
  const temp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  await fs.mkdir(join(root, INDEX_DIR), { recursive: true }).catch(() => undefined);
  const facts: Facts = {
    format: FORMAT,
    version: INDEX_VERSION,
    reads: REFERENCING_LOG_VERSION,
    maxLogBytes,
    count: entries.length,
    ...(state.verifiedAt === undefined ? {} : { verifiedAt: state.verifiedAt }),
    ...(state.journal === undefined ? {} : { journal: state.journal }),
  };
  const text = `${JSON.stringify(facts)}\n${JSON.stringify(encodeHeads(entries))}\n${JSON.stringify(encodeDetails(entries))}\n`;
  try {
    const handle = await fs.open(temp, "wx");
    try {
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch {
    await fs.unlink(temp).catch(() => undefined);
  }
}

// Line 2, the heads. `head[i]`: 0 not known yet, 1 the facts (`created`, `cwd` as an index into
// `cwds` or -1, `ids` / `parents` by position when present; the id only when it is not the file
// name's stem), 2 `list()` skips the file.
interface Heads {
  names: string[];
  dev: number[];
  ino: number[];
  size: number[];
  mtime: number[];
  head: number[];
  created: number[];
  cwd: number[];
  cwds: string[];
  ids: Record<string, string>;
  parents: Record<string, string>;
}

// Line 3, the details. `kind[i]`: 0 none, 1 a digest (`turns`, `events`, `open` 0/1, `prompt`
// string or null; its header facts are the head's), 2 a problem (`problems` by position).
// `deps` by position: `[name, dev, ino, size, mtimeMs]`, or `[name]` for a log that was absent.
interface Details {
  kind: number[];
  turns: number[];
  events: number[];
  open: number[];
  prompt: (string | null)[];
  problems: Record<string, LogProblem>;
  deps: Record<string, (string | number)[][]>;
}

function encodeHeads(entries: readonly IndexEntry[]): Heads {
  const h: Heads = {
    names: [],
    dev: [],
    ino: [],
    size: [],
    mtime: [],
    head: [],
    created: [],
    cwd: [],
    cwds: [],
    ids: {},
    parents: {},
  };
  const cwdAt = new Map<string, number>();
  entries.forEach((e, i) => {
    h.names.push(e.name);
    h.dev.push(e.dev);
    h.ino.push(e.ino);
    h.size.push(e.size);
    h.mtime.push(e.mtimeMs);
    const facts = e.digest ?? e.header;
    h.head.push(facts === undefined ? 0 : facts === null ? 2 : 1);
    h.created.push(facts?.createdAt ?? 0);
    let cwd = -1;
    if (facts?.cwd !== undefined) {
      cwd = cwdAt.get(facts.cwd) ?? h.cwds.length;
      if (cwd === h.cwds.length) {
        cwdAt.set(facts.cwd, cwd);
        h.cwds.push(facts.cwd);
      }
    }
    h.cwd.push(cwd);
    if (facts && facts.id !== e.name.slice(0, -LOG_SUFFIX.length)) h.ids[i] = facts.id;
    if (facts?.parentSession !== undefined) h.parents[i] = facts.parentSession;
  });
  return h;
}

function encodeDetails(entries: readonly IndexEntry[]): Details {
  const d: Details = { kind: [], turns: [], events: [], open: [], prompt: [], problems: {}, deps: {} };
  entries.forEach((e, i) => {
    const g = e.digest;
    d.kind.push(g !== undefined ? 1 : e.problem !== undefined ? 2 : 0);
    d.turns.push(g?.turns ?? 0);
    d.events.push(g?.events ?? 0);
    d.open.push(g?.open === true ? 1 : 0);
    d.prompt.push(g?.lastPrompt ?? null);
    if (g === undefined && e.problem !== undefined) d.problems[i] = e.problem;
    if (e.deps !== undefined && (g !== undefined || e.problem !== undefined))
      d.deps[i] = e.deps.map((dep) =>
        dep.identity === null
          ? [dep.name]
          : [dep.name, dep.identity.dev, dep.identity.ino, dep.identity.size, dep.identity.mtimeMs],
      );
  });
  return d;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Line 2's entries by position (undefined where a value is malformed: that log is re-read). */
function decodeHeads(raw: unknown, count: number): (Mutable<IndexEntry> | undefined)[] {
  const out: (Mutable<IndexEntry> | undefined)[] = [];
  if (!isRecord(raw)) return out;
  const { names, dev, ino, size, mtime, head, created, cwd, cwds, ids, parents } = raw;
  if (!isColumn(names, count) || !isColumn(dev, count) || !isColumn(ino, count) || !isColumn(size, count)) return out;
  if (!isColumn(mtime, count) || !isColumn(head, count) || !isColumn(created, count) || !isColumn(cwd, count))
    return out;
  if (!Array.isArray(cwds) || !isRecord(ids) || !isRecord(parents)) return out;
  for (let i = 0; i < count; i++)
    out.push(headAt(i, names, dev, ino, size, mtime, head, created, cwd, cwds, ids, parents));
  return out;
}

function headAt(
  i: number,
  names: unknown[],
  dev: unknown[],
  ino: unknown[],
  size: unknown[],
  mtime: unknown[],
  head: unknown[],
  created: unknown[],
  cwd: unknown[],
  cwds: unknown[],
  ids: Record<string, unknown>,
  parents: Record<string, unknown>,
): Mutable<IndexEntry> | undefined {
  const name = names[i];
  if (typeof name !== "string" || !name.endsWith(LOG_SUFFIX)) return undefined;
  if (!isNumber(dev[i]) || !isNumber(ino[i]) || !isNumber(size[i]) || !isNumber(mtime[i])) return undefined;
  const entry: Mutable<IndexEntry> = { name, dev: dev[i], ino: ino[i], size: size[i], mtimeMs: mtime[i] };
  const kind = head[i];
  if (kind === 2) entry.header = null;
  else if (kind === 1) {
    const id = ids[i] ?? name.slice(0, -LOG_SUFFIX.length);
    const at = cwd[i];
    const dir = at === -1 ? undefined : typeof at === "number" ? cwds[at] : null;
    const parent = parents[i];
    const createdAt = created[i];
    if (typeof id !== "string" || !isNumber(createdAt) || !isOptionalString(dir) || !isOptionalString(parent))
      return undefined;
    const facts: Mutable<HeaderFacts> = { id, createdAt };
    if (dir !== undefined) facts.cwd = dir as string;
    if (parent !== undefined) facts.parentSession = parent as string;
    entry.header = facts;
  } else if (kind !== 0) return undefined;
  return entry;
}

/** Adds line 3's load results to line 2's entries; a malformed one is left out (the log re-read). */
function decodeDetails(raw: unknown, count: number, entries: (Mutable<IndexEntry> | undefined)[]): void {
  if (!isRecord(raw)) return;
  const { kind, turns, events, open, prompt, problems, deps } = raw;
  if (!isColumn(kind, count) || !isColumn(turns, count) || !isColumn(events, count) || !isColumn(open, count)) return;
  if (!isColumn(prompt, count) || !isRecord(problems) || !isRecord(deps)) return;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (entry === undefined) continue;
    const k = kind[i];
    const these = deps[i] === undefined ? [] : decodeDeps(deps[i]);
    if (these === undefined) continue;
    if (k === 1) {
      const facts = entry.header;
      const t = turns[i];
      const n = events[i];
      const o = open[i];
      const p = prompt[i];
      if (facts === undefined || facts === null || !isNumber(t) || !isNumber(n) || (o !== 0 && o !== 1)) continue;
      if (!(p === null || typeof p === "string")) continue;
      // Built whole, with the row's `updatedAt` (the identity's, which the listing checks): a
      // listing hands this very object on as the row of an unchanged log.
      const digest: Mutable<SessionDigest> = {
        id: facts.id,
        createdAt: facts.createdAt,
        turns: t,
        events: n,
        open: o === 1,
        updatedAt: Math.floor(entry.mtimeMs),
      };
      if (facts.cwd !== undefined) digest.cwd = facts.cwd;
      if (facts.parentSession !== undefined) digest.parentSession = facts.parentSession;
      if (p !== null) digest.lastPrompt = p;
      entry.digest = digest;
      // `header` stays (the same facts): a `delete` would make 10,000 entries slow dictionaries.
    } else if (k === 2) {
      const problem = problems[i];
      if (!isProblem(problem)) continue;
      entry.problem = {
        code: problem.code,
        message: problem.message,
        ...(problem.file === undefined ? {} : { file: problem.file }),
        ...(problem.line === undefined ? {} : { line: problem.line }),
      };
    } else continue;
    if (these.length > 0) entry.deps = these;
  }
}

function decodeDeps(raw: unknown): Dependency[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out: Dependency[] = [];
  for (const d of raw) {
    if (!Array.isArray(d) || typeof d[0] !== "string") return undefined;
    if (d.length === 1) out.push({ name: d[0], identity: null });
    else if (d.length === 5 && d.slice(1).every(isNumber))
      out.push({ name: d[0], identity: { dev: d[1], ino: d[2], size: d[3], mtimeMs: d[4] } });
    else return undefined;
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isOptionalString = (v: unknown): boolean => v === undefined || typeof v === "string";

/** Whether a value is a column: an array of `count` elements. */
const isColumn = (v: unknown, count: number): v is unknown[] => Array.isArray(v) && v.length === count;

const isMark = (v: unknown): v is JournalMark => isRecord(v) && typeof v.tag === "string" && isCount(v.offset);

const isProblem = (v: unknown): v is LogProblem =>
  isRecord(v) &&
  typeof v.code === "string" &&
  typeof v.message === "string" &&
  isOptionalString(v.file) &&
  (v.line === undefined || isNumber(v.line));
