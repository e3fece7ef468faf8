// The JSONL store's listings over its summary index (session-index-file.ts): `list()`'s
// summaries (each log's header) and `listLogs()`'s rows (each log loaded read-only: turns, last
// prompt, or why it cannot be read). A listing lists the directory, reads the index, and reuses
// an entry only while its file has the recorded identity (dev, ino, size, mtime) — and, for a
// fork stored by reference, while every log its seed is read from has the identity recorded
// with it. The identities come from a stat of every `*.jsonl` file, except when the directory
// itself is unchanged since such a full stat (see `trusted`): then only logs a writer holds
// locked are stat'ed. Everything else is read from the log as before and the index is rewritten
// (only when something changed). The logs stay the truth: an index that is missing, torn, stale
// or from another version costs a re-read, never a wrong row.
import { statSync } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { join, sep } from "node:path";
import { contentText } from "../messages/index.js";
import type { Session, SessionEvent } from "../session/index.js";
import { isNotFound, peekMeta, peekSummary } from "./meta-peek.js";
import type { StoreFileSystem } from "./store-file-system.js";
import { type FileIdentity, identityOf, sameIdentity } from "./load-cache.js";
import {
  type Dependency,
  type HeaderFacts,
  type IndexEntry,
  type LogDigest,
  type LogProblem,
  readIndex,
  type VerifiedDirectory,
  writeIndex,
} from "./session-index-file.js";
import { type SessionSummary, StoreError, type StoreErrorCode } from "./types.js";

/** A readable log's listing row (`JsonlSessionStore.listLogs`). */
export interface SessionDigest extends LogDigest {
  /** The log file's mtime (ms since epoch). */
  readonly updatedAt: number;
}

/** One `*.jsonl` file of the sessions directory, as `listLogs()` lists it. */
export type ListedLog =
  | { readonly kind: "session"; readonly name: string; readonly digest: SessionDigest }
  /** `error`: why the log cannot be loaded — a `StoreError` (`newer-version`, `corrupt`, …) or a file-system error. */
  | { readonly kind: "unreadable"; readonly name: string; readonly error: unknown };

/** The directory a listing reads, and how. */
export interface IndexedDirectory {
  readonly fs: StoreFileSystem;
  readonly root: string;
  readonly maxLogBytes: number;
  /** Whether the index is read and written; without it every listing reads every log. */
  readonly useIndex: boolean;
}

/**
 * The load refusals a log keeps until its file (or a file its seed is read from) changes; their
 * verdict is kept in the index. `newer-version` is not: a newer Keelson may read the log.
 */
const KEPT_PROBLEMS: ReadonlySet<StoreErrorCode> = new Set([
  "corrupt",
  "foreign",
  "seed-unavailable",
  "not-a-file",
  "too-large",
  "invalid-id",
]);
/** At most this many stats in flight with an injected (asynchronous) file system. */
const STAT_CONCURRENCY = 16;
const LOG_SUFFIX = ".jsonl";
const LOCK_SUFFIX = ".lock";
/** How much older than a full stat of the logs the directory's mtime must be to be trusted later. */
const RACY_MS = 2000;

/** Per `*.jsonl` name: its identity, or null when it vanished since the directory was listed, or undefined when it could not be stat'ed. */
type Identities = ReadonlyMap<string, FileIdentity | null | undefined>;

interface Scan {
  /** The `*.jsonl` names, sorted. */
  readonly names: readonly string[];
  readonly identities: Identities;
  readonly index: ReadonlyMap<string, IndexEntry>;
  /** The directory as of the last listing that stat'ed every log (this one, or the index's). */
  readonly directory: VerifiedDirectory | undefined;
  /** Whether `directory` is this listing's and worth writing even if no entry changed. */
  readonly directoryNews: boolean;
}

/** `list()`: each log's header summary, oldest first; foreign, broken and newer logs are left out. */
export async function listSummaries(dir: IndexedDirectory): Promise<SessionSummary[]> {
  const out: SessionSummary[] = [];
  const peek = (name: string): Promise<SessionSummary | undefined> =>
    peekSummary(dir.fs, join(dir.root, name), dir.maxLogBytes);
  await refresh(dir, (name, identity, entry) => {
    if (identity === undefined)
      return peek(name).then((summary) => {
        if (summary !== undefined) out.push(summary);
        return undefined;
      });
    // A readable log's digest has its header's facts (a load validates the header as the peek does).
    const known = entry?.digest ?? entry?.header;
    if (known !== undefined) {
      if (known !== null) out.push(summaryFrom(known, identity));
      return entry;
    }
    return peek(name).then((summary) => {
      const header = summary === undefined ? null : factsOf(summary);
      if (header !== null) out.push(summaryFrom(header, identity));
      return { ...(entry ?? newEntry(name, identity)), header };
    });
  });
  return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
}

const summaryFrom = (facts: HeaderFacts, identity: FileIdentity): SessionSummary => ({
  ...factsOf(facts),
  updatedAt: Math.floor(identity.mtimeMs),
});

/**
 * `listLogs()`: every `*.jsonl` file in name order, as `load(id)` (read-only) sees it: a
 * readable log's digest, or why it cannot be loaded.
 */
export async function listLogs(dir: IndexedDirectory, load: (id: string) => Promise<Session>): Promise<ListedLog[]> {
  const out: ListedLog[] = [];
  await refresh(dir, (name, identity, entry, identities) => {
    if (identity === undefined)
      return statError(dir, name).then((error) => {
        out.push({ kind: "unreadable", name, error });
        return undefined;
      });
    const updatedAt = Math.floor(identity.mtimeMs);
    if (entry !== undefined && usable(entry, identities)) {
      out.push(rowOf(name, entry, updatedAt));
      return entry;
    }
    return detailOf(dir, name, load, identities).then((loaded) => {
      const base = withoutDetail(entry ?? newEntry(name, identity));
      if ("error" in loaded) {
        out.push({ kind: "unreadable", name, error: loaded.error });
        return base;
      }
      out.push(rowOf(name, loaded.detail, updatedAt));
      if (!loaded.keep) return base;
      // A digest carries the header's facts: no separate `header` is kept with it.
      if (loaded.detail.digest !== undefined) {
        const { header: _header, ...rest } = base;
        return { ...rest, ...loaded.detail };
      }
      return { ...base, ...loaded.detail };
    });
  });
  return out;
}

/**
 * Lists the directory, stats every log, reads the index, and calls `visit` for each log with its
 * identity and its index entry (when the file still has the entry's identity), one log after the
 * other. `visit` returns the log's entry now — the same object when nothing was computed. The index is rewritten,
 * newest log first, when any entry changed or a log is gone.
 */
async function refresh(
  dir: IndexedDirectory,
  visit: (
    name: string,
    identity: FileIdentity | undefined,
    entry: IndexEntry | undefined,
    identities: Identities,
  ) => IndexEntry | undefined | Promise<IndexEntry | undefined>,
): Promise<void> {
  const scan = await scanDirectory(dir);
  const entries: IndexEntry[] = [];
  let changed = false;
  for (const name of scan.names) {
    const identity = scan.identities.get(name);
    if (identity === null) continue; // removed since the directory was listed
    const stored = scan.index.get(name);
    const entry = identity !== undefined && stored !== undefined && sameIdentity(stored, identity) ? stored : undefined;
    // Awaited only when the log had to be read: an entry reused as is costs no promise.
    const visited = visit(name, identity, entry, scan.identities);
    const next = visited instanceof Promise ? await visited : visited;
    if (next === undefined) continue;
    if (next !== entry) changed = true;
    entries.push(next);
  }
  if (!dir.useIndex || (!changed && !scan.directoryNews && entries.length === scan.index.size)) return;
  entries.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? -1 : 1));
  await writeIndex(dir.fs, dir.root, dir.maxLogBytes, entries, scan.directory);
}

async function scanDirectory(dir: IndexedDirectory): Promise<Scan> {
  const empty: Scan = {
    names: [],
    identities: new Map(),
    index: new Map(),
    directory: undefined,
    directoryNews: false,
  };
  const verifiedAt = Date.now(); // before the directory's stat: a change after it has a later mtime
  let all: string[];
  let info: FileIdentity;
  try {
    info = identityOf(await dir.fs.stat(dir.root));
    all = await dir.fs.readdir(dir.root);
  } catch (e) {
    if (isNotFound(e)) return empty;
    throw e;
  }
  const names = all.filter((n) => n.endsWith(LOG_SUFFIX)).sort();
  const stored = dir.useIndex ? await readIndex(dir.fs, dir.root, dir.maxLogBytes) : undefined;
  const index = stored?.entries ?? new Map<string, IndexEntry>();
  const was = stored?.directory;
  if (was !== undefined && trusted(was, info)) {
    // No log was created, removed or locked since every log was last stat'ed (the directory is
    // unchanged), so only logs open for writing now can have changed: those are stat'ed.
    const locked = new Set(all.filter((n) => n.endsWith(LOCK_SUFFIX)).map((n) => n.slice(0, -LOCK_SUFFIX.length)));
    const restat = names.filter((n) => locked.has(n.slice(0, -LOG_SUFFIX.length)) || !index.has(n));
    const identities: Map<string, FileIdentity | null | undefined> = new Map(await statAll(dir, restat));
    for (const name of names) if (!identities.has(name)) identities.set(name, index.get(name)!);
    return { names, identities, index, directory: was, directoryNews: false };
  }
  const identities = await statAll(dir, names);
  const directory = { dev: info.dev, ino: info.ino, mtimeMs: info.mtimeMs, verifiedAt };
  // Worth recording only when a later listing can trust it (see `trusted`).
  return { names, identities, index, directory, directoryNews: directory.mtimeMs < verifiedAt - RACY_MS };
}

/**
 * Whether the directory is as it was when every log was last stat'ed, so that the logs not
 * locked by a writer are as they were then. Keelson writes a log only while holding its
 * `<id>.lock` (its creation and removal change the directory's mtime), and creates and removes
 * logs in the directory; so an unchanged directory with no lock means no Keelson writer touched
 * a log since. The directory's mtime is trusted only when it was older than `RACY_MS` at that
 * last full stat: a file-system timestamp is coarse (a clock tick), so a change made just after
 * the stat could otherwise keep the same mtime. A log rewritten in place by another program,
 * without a lock and without touching the directory, is not seen until the directory changes.
 */
function trusted(was: VerifiedDirectory, now: FileIdentity): boolean {
  return (
    was.dev === now.dev && was.ino === now.ino && was.mtimeMs === now.mtimeMs && was.mtimeMs < was.verifiedAt - RACY_MS
  );
}

/**
 * The identity of every named file. With Node's own file system the stats are synchronous: at
 * 10,000 logs `statSync` took 85–115 ms on the 2-core test box where `fs.promises.stat` took
 * 160–400 ms (the thread pool's round trips); an injected file system is awaited, a few at a time.
 */
async function statAll(dir: IndexedDirectory, names: readonly string[]): Promise<Identities> {
  const identities = new Map<string, FileIdentity | null | undefined>();
  if (dir.fs === nodeFs) {
    const prefix = `${dir.root}${sep}`; // not path.join per name: a tenth of the loop's time
    for (const name of names) {
      try {
        const info = statSync(prefix + name, { throwIfNoEntry: false });
        identities.set(name, info === undefined ? null : identityOf(info));
      } catch {
        identities.set(name, undefined);
      }
    }
    return identities;
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < names.length) {
      const name = names[next++]!;
      try {
        identities.set(name, identityOf(await dir.fs.stat(join(dir.root, name))));
      } catch (e) {
        identities.set(name, isNotFound(e) ? null : undefined);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(STAT_CONCURRENCY, names.length) }, worker));
  return identities;
}

/** Why `name` could not be stat'ed (for its row; the listing goes on). */
async function statError(dir: IndexedDirectory, name: string): Promise<unknown> {
  try {
    await dir.fs.stat(join(dir.root, name));
    return new Error(`${join(dir.root, name)} could not be stat'ed`);
  } catch (e) {
    return e;
  }
}

const newEntry = (name: string, identity: FileIdentity): IndexEntry => ({
  name,
  dev: identity.dev,
  ino: identity.ino,
  size: identity.size,
  mtimeMs: identity.mtimeMs,
});

/** The entry without its load result (kept: its identity and header facts). */
function withoutDetail(entry: IndexEntry): IndexEntry {
  if (entry.digest === undefined && entry.problem === undefined && entry.deps === undefined) return entry;
  const { digest: _digest, problem: _problem, deps: _deps, ...rest } = entry;
  return rest;
}

/** A header's facts, copied field by field. */
const factsOf = (s: HeaderFacts): HeaderFacts => ({
  id: s.id,
  createdAt: s.createdAt,
  ...(s.cwd === undefined ? {} : { cwd: s.cwd }),
  ...(s.parentSession === undefined ? {} : { parentSession: s.parentSession }),
});

/** Whether an entry's load result still holds: a kept problem, and every log its seed was read from unchanged. */
function usable(entry: IndexEntry, identities: Identities): boolean {
  if (entry.digest === undefined && (entry.problem === undefined || !KEPT_PROBLEMS.has(entry.problem.code)))
    return false;
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
function rowOf(name: string, result: LoadResult, updatedAt: number): ListedLog {
  const d = result.digest;
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

const placeOf = (file: string | undefined, line: number | undefined): { file?: string; line?: number } => ({
  ...(file === undefined ? {} : { file }),
  ...(line === undefined ? {} : { line }),
});

/** What a load gave, as kept in an entry: a digest or a problem, and the files the seed came from. */
interface LoadResult {
  readonly digest?: LogDigest;
  readonly problem?: LogProblem;
  readonly deps?: readonly Dependency[];
}

/**
 * Loads `name` read-only: its result (`keep`: whether it may go into the index — not when a file
 * its seed is read from could not be stat'ed), or the error to list when that cannot be kept.
 */
async function detailOf(
  dir: IndexedDirectory,
  name: string,
  load: (id: string) => Promise<Session>,
  identities: Identities,
): Promise<{ detail: LoadResult; keep: boolean } | { error: unknown }> {
  let session: Session;
  try {
    session = await load(name.slice(0, -LOG_SUFFIX.length));
  } catch (error) {
    if (!(error instanceof StoreError) || !KEPT_PROBLEMS.has(error.code)) return { error };
    const deps = await dependenciesOf(dir, name, identities);
    if (deps === undefined) return { error };
    const problem: LogProblem = { code: error.code, message: error.message, ...placeOf(error.file, error.line) };
    return { detail: { problem, ...(deps.length === 0 ? {} : { deps }) }, keep: true };
  }
  // Only a fork can be stored by reference: only a fork's row can depend on other files.
  const deps = session.header.parentSession === undefined ? [] : await dependenciesOf(dir, name, identities);
  const digest = digestOf(session);
  return { detail: { digest, ...(deps === undefined || deps.length === 0 ? {} : { deps }) }, keep: deps !== undefined };
}

/**
 * The logs a load of `name` reads its seed from (a fork stored by reference, and the log its
 * source's seed is in, and so on) with their identities at the scan; undefined when one could not
 * be stat'ed (the detail is then not kept).
 */
async function dependenciesOf(
  dir: IndexedDirectory,
  name: string,
  identities: Identities,
): Promise<Dependency[] | undefined> {
  const deps: Dependency[] = [];
  const seen = new Set([name]);
  for (let file = name; ; ) {
    let source: string | undefined;
    try {
      source = (await peekMeta(dir.fs, join(dir.root, file), dir.maxLogBytes))?.seedFrom?.session;
    } catch {
      return deps; // unreadable from here on: the load reported it, and this file's identity is recorded
    }
    if (source === undefined) return deps;
    const dep = `${source}${LOG_SUFFIX}`;
    if (seen.has(dep)) return deps; // a reference loop: `corrupt`, recorded with the files so far
    seen.add(dep);
    const identity = identities.get(dep);
    if (identity === undefined && identities.has(dep)) return undefined;
    deps.push({ name: dep, identity: identity ?? null });
    if (identity === undefined || identity === null) return deps;
    file = dep;
  }
}

/** A readable session's listing row (without `updatedAt`). */
function digestOf(session: Session): LogDigest {
  const { header, events } = session;
  let last: SessionEvent<"user/message"> | undefined;
  for (let i = events.length - 1; i >= 0 && last === undefined; i--)
    if (events[i]!.type === "user/message") last = events[i] as SessionEvent<"user/message">;
  return {
    id: session.id,
    createdAt: header.createdAt,
    ...(header.cwd === undefined ? {} : { cwd: header.cwd }),
    ...(header.parentSession === undefined ? {} : { parentSession: header.parentSession }),
    turns: session.lastTurn,
    events: events.length,
    open: session.openTurn !== null,
    ...(last === undefined ? {} : { lastPrompt: contentText(last.data.content) }),
  };
}
