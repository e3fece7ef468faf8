// One listing's view of the sessions directory for the summary index (session-index.ts): the
// `*.jsonl` names, each log's identity (dev, ino, size, mtime) and the stored index. Which logs
// are stat'ed: every one when the index is new, the release journal's mark no longer holds (the
// journal was created, replaced, rotated or removed) or the last full stat is over
// `FULL_STAT_MS` old; otherwise only the logs that can have changed since the index was written
// — new names, logs released since (the journal, session-index-journal.ts) and logs locked now
// (`<id>.lock`) — the rest keep the identity the index recorded. The order (directory listed,
// then the journal read, then the stats) is what makes that safe; see the journal's module.
import { statSync } from "node:fs";
import * as nodeFs from "node:fs/promises";
import { join, sep } from "node:path";
import { type FileIdentity, identityOf } from "./load-cache.js";
import { isNotFound } from "./fs-error-text.js";
import { type IndexEntry, readIndex } from "./session-index-file.js";
import { type JournalMark, readJournal } from "./session-index-journal.js";
import type { StoreFileSystem } from "./store-file-system.js";

/** The directory a listing reads, and how. */
export interface IndexedDirectory {
  readonly fs: StoreFileSystem;
  readonly root: string;
  readonly maxLogBytes: number;
  /** Whether the index is read and written; without it every listing reads every log. */
  readonly useIndex: boolean;
}

/** Per `*.jsonl` name: its identity, or null when it vanished since the directory was listed, or undefined when it could not be stat'ed. */
export interface Identities {
  get(name: string): FileIdentity | null | undefined;
  has(name: string): boolean;
}

export interface Scan {
  /** The `*.jsonl` names, sorted. */
  readonly names: readonly string[];
  /** The same names in the directory's order (what `namesDigest` is taken over). */
  readonly listed: readonly string[];
  readonly identities: Identities;
  readonly index: ReadonlyMap<string, IndexEntry>;
  /** Adds the stored load results to `index`'s entries (see `readIndex`). */
  readonly details: () => void;
  /** The journal mark and full-stat time the index written after this listing records. */
  readonly journal: JournalMark | undefined;
  readonly verifiedAt: number | undefined;
  /** Whether those differ from the stored index's (worth writing even if no entry changed). */
  readonly news: boolean;
  /** The stored index's generation (undefined: none, or no index). */
  readonly generation: string | undefined;
}

/** At most this many stats in flight with an injected (asynchronous) file system. */
const STAT_CONCURRENCY = 16;
const LOG_SUFFIX = ".jsonl";
const LOCK_SUFFIX = ".lock";
/** A listing stats every log when the last one that did is older than this (bounds what a foreign writer hides). */
export const FULL_STAT_MS = 10 * 60 * 1000;

const NOTHING = {
  details: () => undefined,
  journal: undefined,
  verifiedAt: undefined,
  news: false,
  generation: undefined,
} as const;

/** Lists the directory and stats what can have changed (see the module comment). */
export async function scanDirectory(dir: IndexedDirectory): Promise<Scan> {
  const started = Date.now(); // before the directory is listed: a later full stat is newer than this
  let all: string[];
  try {
    all = await dir.fs.readdir(dir.root);
  } catch (e) {
    if (isNotFound(e)) return { ...NOTHING, names: [], listed: [], identities: new Map(), index: new Map() };
    throw e;
  }
  const listed = all.filter((n) => n.endsWith(LOG_SUFFIX));
  const names = [...listed].sort();
  if (!dir.useIndex) {
    const identities = await statAll(dir, names);
    return { ...NOTHING, names, listed, identities, index: new Map() };
  }
  const stored = await readIndex(dir.fs, dir.root, dir.maxLogBytes);
  const { entries: index, details } = stored;
  // After the directory listing, before any stat (the journal's module says why).
  const journal = await readJournal(dir.fs, dir.root, stored.journal);
  const fresh = stored.verifiedAt !== undefined && started - stored.verifiedAt < FULL_STAT_MS;
  if (journal?.released !== undefined && fresh && index.size > 0) {
    const locked = new Set(all.filter((n) => n.endsWith(LOCK_SUFFIX)).map((n) => n.slice(0, -LOCK_SUFFIX.length)));
    const restat = names.filter(
      (n) => !index.has(n) || journal.released!.has(n) || locked.has(n.slice(0, -LOG_SUFFIX.length)),
    );
    const identities: Map<string, FileIdentity | null | undefined> = new Map(await statAll(dir, restat));
    for (const name of names) if (!identities.has(name)) identities.set(name, index.get(name)!);
    // A delta is folded into the base by the next write (it has news only when it holds entries).
    const news = journal.mark.offset !== stored.journal?.offset || stored.delta;
    const { generation } = stored;
    return {
      names,
      listed,
      identities,
      index,
      details,
      journal: journal.mark,
      verifiedAt: stored.verifiedAt,
      news,
      generation,
    };
  }
  const identities = await statAll(dir, names);
  // Without a journal (it could not be created) no later listing may skip a stat: no mark, no time.
  return {
    names,
    listed,
    identities,
    index,
    details,
    journal: journal?.mark,
    verifiedAt: journal === undefined ? undefined : started,
    news: journal !== undefined || stored.delta,
    generation: stored.generation,
  };
}

/**
 * The identity of every named file. With Node's own file system the stats are synchronous: at
 * 10,000 logs `statSync` took 85–115 ms on the 2-core test box where `fs.promises.stat` took
 * 160–400 ms (the thread pool's round trips); an injected file system is awaited, a few at a time.
 */
export async function statAll(
  dir: IndexedDirectory,
  names: readonly string[],
): Promise<Map<string, FileIdentity | null | undefined>> {
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
export async function statError(dir: IndexedDirectory, name: string): Promise<unknown> {
  try {
    await dir.fs.stat(join(dir.root, name));
    return new Error(`${join(dir.root, name)} could not be stat'ed`);
  } catch (e) {
    return e;
  }
}
