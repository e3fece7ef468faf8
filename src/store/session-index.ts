// The JSONL store's listings over its summary index (session-index-file.ts): `list()`'s
// summaries (each log's header) and `listLogs()`'s rows (each log loaded read-only: turns, last
// prompt, or why it cannot be read). A listing lists the directory, reads the index, and reuses
// an entry only while its file has the recorded identity (dev, ino, size, mtime) — and, for a
// fork stored by reference, while every log its seed is read from has the identity recorded
// with it. Which logs are stat'ed for their identity is session-index-scan.ts's (only those that
// can have changed since the index was written, by the release journal). Everything else is
// read from the log as before and the index is rewritten (only when something changed). The
// logs stay the truth: an index that is missing, torn, stale or from another version costs a
// re-read, never a wrong row.
import { join } from "node:path";
import { contentText, previewText } from "../messages/index.js";
import type { Session, SessionEvent } from "../session/index.js";
import { peekMeta, peekSummary } from "./meta-peek.js";
import { type FileIdentity, sameIdentity } from "./load-cache.js";
import { type Identities, type IndexedDirectory, scanDirectory, statError } from "./session-index-scan.js";
import {
  type Dependency,
  type HeaderFacts,
  type IndexEntry,
  type LogDigest,
  type LogProblem,
  newGeneration,
  type SessionDigest,
  writeIndex,
} from "./session-index-file.js";
import {
  KEPT_PROBLEMS,
  type ListedLog,
  type LoadResult,
  namesDigest,
  placeOf,
  rowOf,
  usable,
} from "./session-index-entry.js";
import { type SessionSummary, StoreError } from "./types.js";

const LOG_SUFFIX = ".jsonl";
/** How much of the last prompt a digest keeps (a preview: whitespace collapsed, cut with an ellipsis). */
export const LAST_PROMPT_CHARS = 80;

export type { ListedLog, SessionDigest };

/** `list()`: each log's header summary, oldest first; foreign, broken and newer logs are left out. */
export async function listSummaries(dir: IndexedDirectory): Promise<SessionSummary[]> {
  const out: SessionSummary[] = [];
  const peek = (name: string): Promise<SessionSummary | undefined> =>
    peekSummary(dir.fs, join(dir.root, name), dir.maxLogBytes);
  await refresh(dir, false, (name, identity, entry) => {
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
  return (await listLogsAt(dir, load)).logs;
}

/** `listLogs()`, and the generation of the index it leaves (undefined: no index kept). */
export async function listLogsAt(
  dir: IndexedDirectory,
  load: (id: string) => Promise<Session>,
): Promise<{ logs: ListedLog[]; generation: string | undefined }> {
  const out: ListedLog[] = [];
  const generation = await refresh(dir, true, (name, identity, entry, identities) => {
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
    return loadEntry(dir, name, identity, entry, identities, load).then((loaded) => {
      out.push(loaded.row);
      return loaded.entry;
    });
  });
  return { logs: out, generation };
}

/**
 * Loads `name` read-only: its row, and its entry now (`entry`, the stored one for this identity,
 * gives the header facts kept when the load result is not kept).
 */
export async function loadEntry(
  dir: IndexedDirectory,
  name: string,
  identity: FileIdentity,
  entry: IndexEntry | undefined,
  identities: Identities,
  load: (id: string) => Promise<Session>,
): Promise<{ row: ListedLog; entry: IndexEntry }> {
  const loaded = await detailOf(dir, name, load, identities);
  const base = withoutDetail(entry ?? newEntry(name, identity));
  if ("error" in loaded) return { row: { kind: "unreadable", name, error: loaded.error }, entry: base };
  const row = rowOf(name, loaded.detail, Math.floor(identity.mtimeMs));
  if (!loaded.keep) return { row, entry: base };
  // A digest carries the header's facts: no separate `header` is kept with it.
  if (loaded.detail.digest !== undefined) {
    const { header: _header, ...rest } = base;
    return { row, entry: { ...rest, ...loaded.detail } };
  }
  return { row, entry: { ...base, ...loaded.detail } };
}

/**
 * Lists the directory, reads the index, stats what can have changed (session-index-scan.ts), and
 * calls `visit` for each log with its identity and its index entry (when the file still has the
 * entry's identity), one log after the other. `visit` returns the log's entry now — the same
 * object when nothing was computed. The index is rewritten, newest log first, when any entry
 * changed, a log is gone, or the scan has news (a journal mark, a full stat, a delta to fold in)
 * to record. `details`: whether `visit` needs the stored load results. Returns the generation of
 * the index the listing leaves (undefined: none was kept) — the one read when no entry changed.
 */
async function refresh(
  dir: IndexedDirectory,
  details: boolean,
  visit: (
    name: string,
    identity: FileIdentity | undefined,
    entry: IndexEntry | undefined,
    identities: Identities,
  ) => IndexEntry | undefined | Promise<IndexEntry | undefined>,
): Promise<string | undefined> {
  const scan = await scanDirectory(dir);
  if (details) scan.details();
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
  if (!dir.useIndex) return undefined;
  changed ||= entries.length !== scan.index.size;
  if (!changed && !scan.news && scan.generation !== undefined) return scan.generation;
  scan.details(); // the entries kept as they were keep their load results
  entries.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.name < b.name ? -1 : 1));
  const generation = changed || scan.generation === undefined ? newGeneration() : scan.generation;
  const kept = new Set(entries.map((e) => e.name));
  const names = namesDigest(scan.listed.filter((name) => kept.has(name)));
  const written = await writeIndex(dir.fs, dir.root, dir.maxLogBytes, entries, { ...scan, generation, names });
  return written ? generation : undefined;
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
    ...(last === undefined ? {} : { lastPrompt: previewText(contentText(last.data.content), LAST_PROMPT_CHARS) }),
  };
}
