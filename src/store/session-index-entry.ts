// One log's entry in the session summary index, as held in memory, and its JSON form where an
// entry is kept whole (the delta, session-index-delta.ts, and line 1's special entries): what
// the store learned about the log (its file identity, header facts, the read-only load's
// result), the load refusals an entry keeps, whether a kept result still holds and the row it
// gives (`usable`, `rowOf`: what a listing with nothing to read runs), and the tolerant checks
// every index reader uses (a malformed value drops the entry: its log is read again).
import { createHash } from "node:crypto";
import { type FileIdentity, sameIdentity } from "./load-cache.js";
import type { Identities } from "./session-index-scan.js";
import type { JournalMark } from "./session-index-journal.js";
import { StoreError, type StoreErrorCode } from "./types.js";

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

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One `*.jsonl` file of the sessions directory, as `listLogs()` lists it. */
export type ListedLog =
  | { readonly kind: "session"; readonly name: string; readonly digest: SessionDigest }
  /** `error`: why the log cannot be loaded — a `StoreError` (`newer-version`, `corrupt`, …) or a file-system error. */
  | { readonly kind: "unreadable"; readonly name: string; readonly error: unknown };

/**
 * The load refusals a log keeps until its file (or a file its seed is read from) changes; their
 * verdict is kept in the index. `newer-version` is not: a newer Keelson may read the log.
 */
export const KEPT_PROBLEMS: ReadonlySet<StoreErrorCode> = new Set([
  "corrupt",
  "foreign",
  "seed-unavailable",
  "not-a-file",
  "too-large",
  "invalid-id",
]);

/** Whether the entry holds a load result a listing may reuse (a digest, or a kept problem). */
export const hasKeptResult = (e: IndexEntry): boolean =>
  e.digest !== undefined || (e.problem !== undefined && KEPT_PROBLEMS.has(e.problem.code));

/**
 * Whether a fast listing (session-index-changes.ts) must look at the entry itself: no kept load
 * result (read again on every listing), or one that depends on other logs' files.
 */
export const isSpecial = (e: IndexEntry): boolean => e.deps !== undefined || !hasKeptResult(e);

/** Whether an entry's load result still holds: a kept problem, and every log its seed was read from unchanged. */
export function usable(entry: IndexEntry, identities: Identities): boolean {
  if (!hasKeptResult(entry)) return false;
  return (entry.deps ?? []).every((dep) => {
    const now = identities.get(dep.name) ?? null; // not listed: absent
    if (now === undefined) return false;
    return dep.identity === null ? now === null : now !== null && sameIdentity(dep.identity, now);
  });
}

/**
 * A load result (kept or fresh) as a row; fields copied one by one (an index is a file anyone can
 * edit), without object spreads: this runs once per log on every listing, mostly in code not yet
 * optimized, where a spread costs several times a plain literal.
 */
export function rowOf(name: string, result: LoadResult, updatedAt: number): ListedLog {
  const d = result.digest;
  // The index's own row object (session-index-file.ts builds it whole) when it is this file's.
  if (d !== undefined && (d as Partial<SessionDigest>).updatedAt === updatedAt)
    return { kind: "session", name, digest: d as SessionDigest };
  if (d !== undefined) {
    const digest: { -readonly [K in keyof SessionDigest]: SessionDigest[K] } = {
      id: d.id,
      createdAt: d.createdAt,
      turns: d.turns,
      events: d.events,
      open: d.open,
      updatedAt,
    };
    if (d.cwd !== undefined) digest.cwd = d.cwd;
    if (d.parentSession !== undefined) digest.parentSession = d.parentSession;
    if (d.lastPrompt !== undefined) digest.lastPrompt = d.lastPrompt;
    return { kind: "session", name, digest };
  }
  const { code, message, file, line } = result.problem!;
  return { kind: "unreadable", name, error: new StoreError(code, message, placeOf(file, line)) };
}

export const placeOf = (file: string | undefined, line: number | undefined): { file?: string; line?: number } => ({
  ...(file === undefined ? {} : { file }),
  ...(line === undefined ? {} : { line }),
});

/** What a load gave, as kept in an entry: a digest or a problem, and the files the seed came from. */
export interface LoadResult {
  readonly digest?: LogDigest;
  readonly problem?: LogProblem;
  readonly deps?: readonly Dependency[];
}

/** An entry as one JSON object (the delta's and line 1's form). */
export function encodeEntry(e: IndexEntry): Record<string, unknown> {
  return {
    name: e.name,
    id: [e.dev, e.ino, e.size, e.mtimeMs],
    ...(e.header === undefined ? {} : { header: e.header }),
    ...(e.digest === undefined ? {} : { digest: e.digest }),
    ...(e.problem === undefined ? {} : { problem: e.problem }),
    ...(e.deps === undefined ? {} : { deps: encodeDeps(e.deps) }),
  };
}

/** `encodeEntry`'s object back, or undefined when anything in it is malformed. */
export function decodeEntry(raw: unknown): IndexEntry | undefined {
  if (!isRecord(raw) || typeof raw.name !== "string" || !raw.name.endsWith(".jsonl")) return undefined;
  const at = raw.id;
  if (!Array.isArray(at) || at.length !== 4 || !at.every(isNumber)) return undefined;
  const entry: Mutable<IndexEntry> = { name: raw.name, dev: at[0]!, ino: at[1]!, size: at[2]!, mtimeMs: at[3]! };
  if (raw.header === null) entry.header = null;
  else if (raw.header !== undefined) {
    const header = factsFrom(raw.header);
    if (header === undefined) return undefined;
    entry.header = header;
  }
  if (raw.digest !== undefined) {
    const d = raw.digest;
    const facts = factsFrom(d);
    if (facts === undefined || !isRecord(d) || !isNumber(d.turns) || !isNumber(d.events)) return undefined;
    if (typeof d.open !== "boolean" || !isOptionalString(d.lastPrompt)) return undefined;
    const digest: Mutable<LogDigest> = { ...facts, turns: d.turns, events: d.events, open: d.open };
    if (d.lastPrompt !== undefined) digest.lastPrompt = d.lastPrompt as string;
    entry.digest = digest;
  }
  if (raw.problem !== undefined) {
    if (!isProblem(raw.problem)) return undefined;
    const { code, message, file, line } = raw.problem;
    entry.problem = { code, message, ...(file === undefined ? {} : { file }), ...(line === undefined ? {} : { line }) };
  }
  if (raw.deps !== undefined) {
    const deps = decodeDeps(raw.deps);
    if (deps === undefined) return undefined;
    entry.deps = deps;
  }
  return entry;
}

function factsFrom(raw: unknown): HeaderFacts | undefined {
  if (!isRecord(raw) || typeof raw.id !== "string" || !isNumber(raw.createdAt)) return undefined;
  if (!isOptionalString(raw.cwd) || !isOptionalString(raw.parentSession)) return undefined;
  const facts: Mutable<HeaderFacts> = { id: raw.id, createdAt: raw.createdAt };
  if (raw.cwd !== undefined) facts.cwd = raw.cwd as string;
  if (raw.parentSession !== undefined) facts.parentSession = raw.parentSession as string;
  return facts;
}

/** Dependencies as `[name, dev, ino, size, mtimeMs]`, or `[name]` for a log that was absent. */
export const encodeDeps = (deps: readonly Dependency[]): (string | number)[][] =>
  deps.map((dep) =>
    dep.identity === null
      ? [dep.name]
      : [dep.name, dep.identity.dev, dep.identity.ino, dep.identity.size, dep.identity.mtimeMs],
  );

export function decodeDeps(raw: unknown): Dependency[] | undefined {
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

/**
 * A digest of log file names in the directory's order (SHA-1 of them joined): a fast listing
 * compares the directory's names with the index's by it, without decoding the index's names.
 * The order is the directory listing's (stable while the directory's entries are, on the usual
 * file systems): a sort of 10,000 names took 3–10 ms in a fresh process, the join and hash
 * 1–2 ms. A reordered listing only costs the decoded comparison, and records the new order.
 */
export function namesDigest(names: readonly string[], without?: ReadonlySet<string>): string {
  // An array, joined as it is when nothing is left out: a fresh process runs this loop-free path
  // over 10,000 names in the interpreter (iterating a Set of them there took ~9 ms).
  const list = without === undefined ? names : names.filter((name) => !without.has(name));
  return createHash("sha1").update(list.join("\n")).digest("hex");
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
export const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
export const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
export const isOptionalString = (v: unknown): boolean => v === undefined || typeof v === "string";
export const isMark = (v: unknown): v is JournalMark => isRecord(v) && typeof v.tag === "string" && isCount(v.offset);
export const isProblem = (v: unknown): v is LogProblem =>
  isRecord(v) &&
  typeof v.code === "string" &&
  typeof v.message === "string" &&
  isOptionalString(v.file) &&
  (v.line === undefined || isNumber(v.line));
