// The most recently written session (`JsonlSessionStore.latest()`, `keelson resume --last`)
// over the summary index, without building the 10,000 summaries `list()` would: the directory
// scan (session-index-scan.ts: only logs that can have changed are stat'ed) gives every log's
// identity, the newest identity is found in one pass, and only that log's header is needed —
// the index's when the log still has the recorded identity, else a peek. A log `list()` leaves
// out (foreign, broken, newer) is passed over for the next newest. Same answer as the newest of
// `list()` (`moreRecent`: greatest `updatedAt`, then greatest `createdAt`, then the smaller id),
// never a stale one; the index is not rewritten (the next listing does that).
import { join } from "node:path";
import { sameIdentity } from "./load-cache.js";
import { peekSummary } from "./meta-peek.js";
import { decodeEntry, type IndexEntry } from "./session-index-entry.js";
import { type IndexedDirectory, type Scan, scanDirectory } from "./session-index-scan.js";
import { type IndexView, openView } from "./session-index-view.js";
import type { SessionSummary } from "./types.js";

/** The newest session `list()` would list, or undefined when it would list none. */
export async function latestSummary(dir: IndexedDirectory): Promise<SessionSummary | undefined> {
  const view = await openView(dir, { fullStat: false }); // a full stat: the scan's pass below
  if (view !== undefined) {
    const fast = await latestInView(dir, view);
    if (fast !== UNDECIDED) return fast;
  }
  const scan = await scanDirectory(dir);
  const { names, identities } = scan;
  // Each log's mtime (a log that could not be stat'ed first: list() peeks it, and so does this).
  const mtimes = new Float64Array(names.length);
  for (let i = 0; i < names.length; i++) {
    const identity = identities.get(names[i]!);
    mtimes[i] = identity === null ? Number.NEGATIVE_INFINITY : identity === undefined ? Infinity : identity.mtimeMs;
  }
  const order = newestFirst(mtimes);
  let best: SessionSummary | undefined;
  for (let i = order.next(); i >= 0; i = order.next()) {
    // Every log from here on is older than the best one found (a peeked one's mtime may move: always looked at).
    if (best !== undefined && mtimes[i] !== Infinity && Math.floor(mtimes[i]!) < best.updatedAt) break;
    const summary = await summaryOf(dir, scan, names[i]!);
    if (summary !== undefined && (best === undefined || moreRecent(summary, best))) best = summary;
  }
  return best;
}

const UNDECIDED = Symbol("undecided");

/**
 * The newest over the fast view (session-index-view.ts), without decoding the index's columns:
 * the candidates are the logs stat'ed now, the delta's entries and line 1's `TOP` newest base
 * entries; every other base entry is no newer than the last of those. UNDECIDED when the best
 * found is not strictly newer than that bound (a log further down could tie or win).
 */
async function latestInView(
  dir: IndexedDirectory,
  view: IndexView,
): Promise<SessionSummary | undefined | typeof UNDECIDED> {
  const top: IndexEntry[] = [];
  for (const raw of view.file.top ?? []) {
    const entry = decodeEntry(raw);
    if (entry === undefined) return UNDECIDED;
    top.push(entry);
  }
  const candidates = new Map<string, { mtime: number; entry: IndexEntry | undefined }>();
  for (const [name, identity] of view.restat) {
    if (identity === null) continue;
    const known = view.delta?.entries.get(name)?.entry ?? top.find((e) => e.name === name);
    const entry = identity !== undefined && known !== undefined && sameIdentity(known, identity) ? known : undefined;
    candidates.set(name, { mtime: identity === undefined ? Infinity : identity.mtimeMs, entry });
  }
  for (const [name, { entry }] of view.delta?.entries ?? [])
    if (entry !== undefined && view.present.has(name) && !candidates.has(name))
      candidates.set(name, { mtime: entry.mtimeMs, entry });
  for (const entry of top)
    if (view.present.has(entry.name) && !candidates.has(entry.name) && !view.delta?.entries.has(entry.name))
      candidates.set(entry.name, { mtime: entry.mtimeMs, entry });
  // Base entries past `top` are no newer than its last (the base is written newest first).
  const bound = view.file.count > top.length ? Math.floor(top.at(-1)?.mtimeMs ?? Infinity) : -Infinity;
  const order = [...candidates].sort((a, b) => b[1].mtime - a[1].mtime);
  let best: SessionSummary | undefined;
  for (const [name, { mtime, entry }] of order) {
    if (best !== undefined && mtime !== Infinity && Math.floor(mtime) < best.updatedAt) break;
    const summary =
      entry === undefined ? await peekSummary(dir.fs, join(dir.root, name), dir.maxLogBytes) : summaryFrom(entry);
    if (summary === null) continue;
    if (summary !== undefined && (best === undefined || moreRecent(summary, best))) best = summary;
  }
  return best !== undefined && best.updatedAt > bound ? best : UNDECIDED;
}

/** An entry's summary (its header facts, `updatedAt` its mtime); null when list() leaves the log out; undefined when not known. */
function summaryFrom(entry: IndexEntry): SessionSummary | null | undefined {
  const facts = entry.digest ?? entry.header;
  if (facts === null || facts === undefined) return facts;
  return {
    id: facts.id,
    createdAt: facts.createdAt,
    updatedAt: Math.floor(entry.mtimeMs),
    ...(facts.cwd === undefined ? {} : { cwd: facts.cwd }),
    ...(facts.parentSession === undefined ? {} : { parentSession: facts.parentSession }),
  };
}

/** The log's summary as list() gives it: the index's header facts while the log is unchanged, else a peek. */
async function summaryOf(dir: IndexedDirectory, scan: Scan, name: string): Promise<SessionSummary | undefined> {
  const identity = scan.identities.get(name);
  const stored = scan.index.get(name);
  if (identity && stored !== undefined && sameIdentity(stored, identity)) {
    const summary = summaryFrom(stored);
    if (summary === null) return undefined; // list() leaves this log out
    if (summary !== undefined) return summary;
  }
  return peekSummary(dir.fs, join(dir.root, name), dir.maxLogBytes);
}

/** Whether `a` is the more recent: greater `updatedAt`, then greater `createdAt`, then the smaller id. */
export const moreRecent = (a: SessionSummary, b: SessionSummary): boolean =>
  a.updatedAt !== b.updatedAt
    ? a.updatedAt > b.updatedAt
    : a.createdAt !== b.createdAt
      ? a.createdAt > b.createdAt
      : a.id.localeCompare(b.id) < 0;

/**
 * The positions of `mtimes` from the newest down (absent logs never): the largest left, found by a
 * pass each for the first few (usually one is enough), then by one sort of the rest.
 */
function newestFirst(mtimes: Float64Array): { next: () => number } {
  const taken = new Uint8Array(mtimes.length);
  let picks = 0;
  let sorted: number[] | undefined;
  let at = 0;
  return {
    next: () => {
      if (sorted === undefined && picks++ < PASSES) {
        let found = -1;
        for (let i = 0; i < mtimes.length; i++)
          if (taken[i] === 0 && mtimes[i] !== Number.NEGATIVE_INFINITY && (found < 0 || mtimes[i]! > mtimes[found]!))
            found = i;
        if (found >= 0) taken[found] = 1;
        return found;
      }
      sorted ??= Array.from(mtimes.keys())
        .filter((i) => taken[i] === 0 && mtimes[i] !== Number.NEGATIVE_INFINITY)
        .sort((a, b) => mtimes[b]! - mtimes[a]!);
      return at < sorted.length ? sorted[at++]! : -1;
    },
  };
}

/** Passes over all mtimes before the rest are sorted once. */
const PASSES = 8;
