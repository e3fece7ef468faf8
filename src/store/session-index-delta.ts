// The summary index's delta (`<sessions dir>/.sessions-index/delta.json`, decision record 0031):
// the entries that changed since the base index file was written, so a listing that re-read one
// log writes a few hundred bytes instead of rewriting the whole index. It applies to one base
// only (the base's generation tag, `base`); a delta of another base — the base was rewritten
// since, by a full listing or an older Keelson — is ignored, as is a torn or malformed one: the
// base alone is then the index, with its own (older) journal mark, so the logs changed since are
// stat'ed and read again. Never a wrong row, at worst a slower listing.
//
// `gens`: the generations since the base, oldest first, one per listing that changed a row;
// each entry records the one that last changed it (`at`, an index into `gens`), a removed log
// stays as a tombstone. So "what changed since generation g" is the entries after g — what a
// listing's caller that kept a rendering of generation g needs to patch it. Written like the
// base (a private temp file renamed into place, not fsynced); a full write of the base removes it.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import {
  decodeEntry,
  encodeEntry,
  type IndexEntry,
  isCount,
  isMark,
  isNumber,
  isRecord,
} from "./session-index-entry.js";
import type { JournalMark } from "./session-index-journal.js";
import { readLogFile } from "./read-log-file.js";
import type { StoreFileSystem } from "./store-file-system.js";
import { PRIVATE_FILE } from "./file-modes.js";

/** The delta, relative to the sessions directory. */
export const DELTA_FILE = join(".sessions-index", "delta.json");
const FORMAT = "keelson-session-index-delta";
/** A delta larger than this is not read (the base alone counts; the next full listing folds it). */
const MAX_DELTA_BYTES = 16 * 1024 * 1024;

/** A log's change in the delta: its entry now, or undefined when the log is gone. */
export interface DeltaChange {
  /** The generation that made the change (an index into `gens`). */
  readonly at: number;
  readonly entry: IndexEntry | undefined;
}

export interface Delta {
  /** The base's generation this delta applies to. */
  readonly base: string;
  /** The generations since the base, oldest first. */
  readonly gens: readonly string[];
  readonly journal: JournalMark | undefined;
  readonly verifiedAt: number | undefined;
  readonly entries: ReadonlyMap<string, DeltaChange>;
  /** The digest of the logs' names with the delta applied (`namesDigest`). */
  readonly names: string;
}

/** The delta in `root` for the base of generation `base`, or undefined (none, another base's, torn, malformed). */
export async function readDelta(fs: StoreFileSystem, root: string, base: string): Promise<Delta | undefined> {
  try {
    const raw: unknown = JSON.parse((await readLogFile(fs, join(root, DELTA_FILE), MAX_DELTA_BYTES)).toString("utf8"));
    if (!isRecord(raw) || raw.format !== FORMAT || raw.base !== base) return undefined;
    const { gens, journal, verifiedAt, changes, names } = raw;
    if (!Array.isArray(gens) || !gens.every((g) => typeof g === "string") || !Array.isArray(changes)) return undefined;
    if (typeof names !== "string") return undefined;
    if (journal !== undefined && !isMark(journal)) return undefined;
    if (verifiedAt !== undefined && !isNumber(verifiedAt)) return undefined;
    const entries = new Map<string, DeltaChange>();
    for (const change of changes) {
      if (!isRecord(change) || !isCount(change.at) || change.at >= gens.length) return undefined;
      if (typeof change.gone === "string") {
        entries.set(change.gone, { at: change.at, entry: undefined });
        continue;
      }
      const entry = decodeEntry(change.entry);
      if (entry === undefined) return undefined;
      entries.set(entry.name, { at: change.at, entry });
    }
    return { base, gens, journal, verifiedAt, entries, names };
  } catch {
    return undefined;
  }
}

/** Writes `delta` into `root` (temp file + rename); false when it could not be written (the listing stands). */
export async function writeDelta(fs: StoreFileSystem, root: string, delta: Delta): Promise<boolean> {
  const file = join(root, DELTA_FILE);
  const temp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  const changes = [...delta.entries].map(([name, { at, entry }]) =>
    entry === undefined ? { at, gone: name } : { at, entry: encodeEntry(entry) },
  );
  const text = JSON.stringify({
    format: FORMAT,
    base: delta.base,
    gens: delta.gens,
    ...(delta.journal === undefined ? {} : { journal: delta.journal }),
    ...(delta.verifiedAt === undefined ? {} : { verifiedAt: delta.verifiedAt }),
    names: delta.names,
    changes,
  });
  try {
    const handle = await fs.open(temp, "wx", PRIVATE_FILE);
    try {
      await handle.writeFile(`${text}\n`);
    } finally {
      await handle.close();
    }
    await fs.rename(temp, file);
    return true;
  } catch {
    await fs.unlink(temp).catch(() => undefined);
    return false;
  }
}

/** Removes the delta (best effort: a delta of another base is ignored anyway). */
export const removeDelta = (fs: StoreFileSystem, root: string): Promise<void> =>
  fs.unlink(join(root, DELTA_FILE)).catch(() => undefined);
