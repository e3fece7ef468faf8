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
// per log); `list()` does not decode line 3 at all. The columns' codec is session-index-columns.ts.
// Line 1 also carries (decision record 0031) the generation, the special entries, the names
// digest and the newest entries whole — what a fast listing (session-index-view.ts) reads
// instead of the columns — and the delta (session-index-delta.ts) of the base's generation is
// applied by `readIndex`.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { JournalMark } from "./session-index-journal.js";
import { readDelta, removeDelta } from "./session-index-delta.js";
import {
  type Dependency,
  encodeEntry,
  isSpecial,
  type HeaderFacts,
  type IndexEntry,
  isCount,
  isMark,
  isNumber,
  isRecord,
  type LogDigest,
  type LogProblem,
  type Mutable,
  type SessionDigest,
} from "./session-index-entry.js";
import { decodeDetails, decodeHeads, encodeDetails, encodeHeads } from "./session-index-columns.js";
import { openLogFile, readLogFile } from "./read-log-file.js";
import { REFERENCING_LOG_VERSION } from "./referencing-version.js";
import type { StoreFileSystem } from "./store-file-system.js";
import { PRIVATE_DIR, PRIVATE_FILE } from "./file-modes.js";

export type { Dependency, HeaderFacts, IndexEntry, LogDigest, LogProblem, SessionDigest };

/** The index's directory in the sessions directory (not `*.jsonl`: never taken for a log). */
export const INDEX_DIR = ".sessions-index";
/** The index file, relative to the sessions directory (version 1 was `sessions.json`, now ignored). */
export const INDEX_FILE = join(INDEX_DIR, "index.json");
const FORMAT = "keelson-session-index";
/** Bumped whenever what an entry holds, or how it is computed, changes: an older index is rebuilt. */
const INDEX_VERSION = 2;
/** An index larger than this is not read (rebuilt instead). */
const MAX_INDEX_BYTES = 256 * 1024 * 1024;
const _LOG_SUFFIX = ".jsonl";

export interface StoredIndex {
  readonly entries: Map<string, IndexEntry>;
  /** Where the index stands in the release journal (session-index-journal.ts). */
  readonly journal: JournalMark | undefined;
  /** When every log was last stat'ed (ms since epoch, taken before the directory was listed). */
  readonly verifiedAt: number | undefined;
  /** Adds the load results to `entries` (once; later calls do nothing). */
  readonly details: () => void;
  /** The generation of the rows read (the delta's last, else the base's), undefined without one. */
  readonly generation: string | undefined;
  /** Whether a delta was applied (a full write folds it into the base). */
  readonly delta: boolean;
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
  /**
   * The index's generation (a random tag, new whenever its rows change; decision record 0031):
   * written with `special`, and a delta (session-index-delta.ts) applies to the base of this tag
   * only. A base without it (an older Keelson's) is read as before, with no fast listing.
   */
  readonly gen?: string;
  /** The entries a fast listing cannot take from the columns: no kept load result, or a seed read from other logs. */
  readonly special?: unknown[];
  /** With `gen`: the digest of the logs' names (`namesDigest`): a fast listing compares the directory's with it. */
  readonly names?: string;
  /** With `gen`: the `TOP` newest entries whole (`latest()` reads them instead of the columns). */
  readonly top?: unknown[];
}

/** An index file's line 1 and its bytes, before the columns are decoded. */
export interface IndexFile {
  readonly count: number;
  readonly journal: JournalMark | undefined;
  readonly verifiedAt: number | undefined;
  readonly gen: string | undefined;
  readonly special: readonly unknown[] | undefined;
  /** The digest of the logs' names (`namesDigest`), with `gen`. */
  readonly names: string | undefined;
  /** With `gen`: the `TOP` newest entries (by mtime), encoded, newest first. */
  readonly top: readonly unknown[] | undefined;
  /** Line 2 (the heads) and line 3 (the details), as JSON text (only when the whole file was read). */
  readonly heads: () => string;
  readonly details: () => string;
  /** After a read of line 1 alone: the whole file, when it still has that line 1 (else undefined). */
  readonly whole: () => Promise<IndexFile | undefined>;
  readonly line1: Buffer;
}

/**
 * The index file in `root` (line 1 checked), or undefined when missing, torn, foreign or from
 * another version. `head`: read line 1 alone (the first 64 KiB; all of it when line 1 is longer)
 * — then `heads()` and `details()` throw until `whole()` gave the whole file.
 */
export async function readIndexFile(
  fs: StoreFileSystem,
  root: string,
  maxLogBytes: number,
  head = false,
): Promise<IndexFile | undefined> {
  const file = join(root, INDEX_FILE);
  try {
    let bytes: Buffer | undefined;
    if (head) {
      const { handle, info } = await openLogFile(fs, file, MAX_INDEX_BYTES);
      try {
        const buffer = Buffer.allocUnsafe(Math.min(HEAD_BYTES, info.size));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        const first = buffer.subarray(0, bytesRead).indexOf(0x0a);
        if (first >= 0) bytes = buffer.subarray(0, first + 1);
      } finally {
        await handle.close();
      }
    }
    const whole = bytes === undefined;
    bytes ??= await readLogFile(fs, file, MAX_INDEX_BYTES);
    const first = bytes.indexOf(0x0a);
    const second = first < 0 || !whole ? -1 : bytes.indexOf(0x0a, first + 1);
    const third = second < 0 ? -1 : bytes.indexOf(0x0a, second + 1);
    if (first < 0 || (whole && third < 0)) return undefined; // torn
    const facts: unknown = JSON.parse(bytes.toString("utf8", 0, first));
    if (!isRecord(facts) || facts.format !== FORMAT || facts.version !== INDEX_VERSION) return undefined;
    if (facts.reads !== REFERENCING_LOG_VERSION || facts.maxLogBytes !== maxLogBytes || !isCount(facts.count))
      return undefined;
    const withGen = typeof facts.gen === "string" && Array.isArray(facts.special) && typeof facts.names === "string";
    const gen = withGen ? (facts.gen as string) : undefined;
    const line1 = bytes.subarray(0, first + 1);
    const part = (from: number, to: number) => (): string => {
      if (!whole) throw new Error("only line 1 of the index was read");
      return bytes.toString("utf8", from, to);
    };
    const index: IndexFile = {
      count: facts.count,
      journal: isMark(facts.journal) ? facts.journal : undefined,
      verifiedAt: isNumber(facts.verifiedAt) ? facts.verifiedAt : undefined,
      gen,
      special: gen === undefined ? undefined : (facts.special as unknown[]),
      names: gen === undefined ? undefined : (facts.names as string),
      top: gen !== undefined && Array.isArray(facts.top) ? facts.top : undefined,
      heads: part(first + 1, second),
      details: part(second + 1, third),
      // The whole file — the same index only if its line 1 is the same bytes (a new write has a new line 1).
      whole: async () => {
        if (whole) return index;
        const all = await readIndexFile(fs, root, maxLogBytes);
        return all?.line1.equals(line1) ? all : undefined;
      },
      line1,
    };
    return index;
  } catch {
    return undefined; // missing, not a regular file, too large or not JSON: rebuilt
  }
}

/** What `readIndexFile(…, head)` reads first: line 1 (facts, special and top entries) is expected within it. */
const HEAD_BYTES = 64 * 1024;

/**
 * The index in `root` for a store reading logs up to `maxLogBytes`, with its delta applied (when
 * the delta is this base's); empty when there is no usable index. The entries have their
 * identity and header facts; `details()` adds the load results (line 3, decoded on the first
 * call only: `list()` does not need them, unless it rewrites the index).
 */
export async function readIndex(fs: StoreFileSystem, root: string, maxLogBytes: number): Promise<StoredIndex> {
  const entries = new Map<string, IndexEntry>();
  const none: StoredIndex = {
    entries,
    journal: undefined,
    verifiedAt: undefined,
    generation: undefined,
    delta: false,
    details: () => undefined,
  };
  const file = await readIndexFile(fs, root, maxLogBytes);
  if (file === undefined) return none;
  const { count } = file;
  let decoded: (Mutable<IndexEntry> | undefined)[];
  try {
    decoded = decodeHeads(JSON.parse(file.heads()), count);
  } catch {
    return none; // not JSON: rebuilt
  }
  const delta = file.gen === undefined ? undefined : await readDelta(fs, root, file.gen);
  const overridden = delta?.entries;
  for (const entry of decoded)
    if (entry !== undefined && !entries.has(entry.name) && !overridden?.has(entry.name)) entries.set(entry.name, entry);
  if (overridden !== undefined)
    for (const [name, { entry }] of overridden) if (entry !== undefined) entries.set(name, entry);
  let pending = true;
  const details = (): void => {
    if (!pending) return;
    pending = false;
    try {
      decodeDetails(JSON.parse(file.details()), count, decoded);
    } catch {
      // not JSON: no load result is kept, every log is loaded again
    }
  };
  return {
    entries,
    journal: delta?.journal ?? file.journal,
    verifiedAt: delta === undefined ? file.verifiedAt : delta.verifiedAt,
    generation: delta === undefined ? file.gen : (delta.gens.at(-1) ?? file.gen),
    delta: delta !== undefined,
    details,
  };
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
  state: {
    readonly journal: JournalMark | undefined;
    readonly verifiedAt: number | undefined;
    /** The generation to record: the one read when no row changed, else a new one. */
    readonly generation: string;
    /** The digest of the entries' names in the directory's order (`namesDigest`). */
    readonly names: string;
  },
): Promise<boolean> {
  const file = join(root, INDEX_FILE);
  const special = entries.filter(isSpecial);
  const temp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  await fs.mkdir(join(root, INDEX_DIR), { recursive: true, mode: PRIVATE_DIR }).catch(() => undefined);
  const facts: Facts = {
    format: FORMAT,
    version: INDEX_VERSION,
    reads: REFERENCING_LOG_VERSION,
    maxLogBytes,
    count: entries.length,
    ...(state.verifiedAt === undefined ? {} : { verifiedAt: state.verifiedAt }),
    ...(state.journal === undefined ? {} : { journal: state.journal }),
    // Too many special entries (a base `list()` wrote, without load results): no fast listing.
    ...(special.length > MAX_SPECIAL
      ? {}
      : {
          gen: state.generation,
          special: special.map(encodeEntry),
          names: state.names,
          top: entries.slice(0, TOP).map(encodeEntry),
        }),
  };
  const text = `${JSON.stringify(facts)}\n${JSON.stringify(encodeHeads(entries))}\n${JSON.stringify(encodeDetails(entries))}\n`;
  try {
    const handle = await fs.open(temp, "wx", PRIVATE_FILE);
    try {
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
  } catch {
    await fs.unlink(temp).catch(() => undefined);
    return false;
  }
  await removeDelta(fs, root); // folded into this base (a delta of another base is never applied anyway)
  return true;
}

/** A new generation tag. */
export const newGeneration = (): string => randomBytes(8).toString("hex");

/** The newest entries line 1 repeats whole (`top`): what `latest()` reads without decoding the columns. */
export const TOP = 16;

/** At most this many special entries in line 1 (more: the base gets no generation). */
const MAX_SPECIAL = 256;
