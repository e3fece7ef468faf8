// A fast listing's view of the sessions directory (decision record 0031): the directory's
// `*.jsonl` names, the index's line 1 (its columns read and decoded only when needed: no object
// per log), its delta, and the identities of the logs that can have changed since (new names,
// released and locked logs, by the release journal — session-index-scan.ts's rule and order:
// directory listed, then the journal read, then the stats). Every other log is taken to be as the
// index recorded it. When the journal's mark no longer holds or the last full stat is over
// `FULL_STAT_MS` old, every log is stat'ed and compared with the recorded identities in the
// columns (`fullStat`). Undefined whenever the full listing must decide: no base with a
// generation (an older Keelson's, or none), no journal can be kept, or a delta past `COMPACT_AT`
// entries (the full listing folds it into a new base); malformed columns throw `GarbledIndex`.
import { isNotFound } from "./fs-error-text.js";
import { type FileIdentity, sameIdentity } from "./load-cache.js";
import { type Delta, readDelta } from "./session-index-delta.js";
import { decodeEntry, type IndexEntry, isSpecial, namesDigest } from "./session-index-entry.js";
import { type HeadColumns, headColumns } from "./session-index-columns.js";
import { type IndexFile, readIndexFile } from "./session-index-file.js";
import { type JournalMark, readJournal } from "./session-index-journal.js";
import { FULL_STAT_MS, type Identities, type IndexedDirectory, statAll } from "./session-index-scan.js";

/** A delta with more entries than this is folded into a new base by a full listing. */
export const COMPACT_AT = 512;
const LOG_SUFFIX = ".jsonl";
const LOCK_SUFFIX = ".lock";

export interface IndexView {
  readonly file: IndexFile & { readonly gen: string };
  readonly delta: Delta | undefined;
  /** The `*.jsonl` names listed. */
  readonly present: ReadonlySet<string>;
  /** The same names in the directory's order (what `digest` is taken over). */
  readonly listed: readonly string[];
  /** The logs stat'ed (new to the index, released since its mark, locked now), with their identity. */
  readonly restat: ReadonlyMap<string, FileIdentity | null | undefined>;
  /** The logs released since the index's mark. */
  readonly released: ReadonlySet<string>;
  /** The journal mark after this read (to record). */
  readonly journal: JournalMark;
  /** The generations of the rows the index holds, oldest first: the base's, then the delta's. */
  readonly chain: readonly string[];
  /** A known log's entry as the index holds it (base entries without their load result), undefined for unknown or removed. */
  readonly stored: (name: string) => IndexEntry | undefined;
  /** The logs the index knows that are not listed. */
  readonly gone: () => string[];
  /** Every log's identity: stat'ed now, else recorded (undefined for a log not listed). */
  readonly identities: Identities;
  /** The special entries (isSpecial) the index holds, by name. */
  readonly special: () => Map<string, IndexEntry>;
  /** The base's columns (line 2 parsed on the first call, after `loadColumns`; GarbledIndex when malformed or not read). */
  readonly heads: () => HeadColumns | undefined;
  /** Reads the rest of the index file (line 1 alone is read at first): before anything may need a base entry's columns. */
  readonly loadColumns: () => Promise<void>;
  /** `namesDigest` of the listed names. */
  readonly digest: string;
  /** Whether the recorded entry of `name` is for the file with `identity`. */
  readonly storedIs: (name: string, identity: FileIdentity) => boolean;
  /** Whether every log was stat'ed (the journal's mark lost, or the last full stat too old). */
  readonly fullStat: boolean;
  /** When every log was last stat'ed, to record (this listing's start after a full stat). */
  readonly verifiedAt: number;
}

/**
 * The view of `dir`, or undefined when a full listing must decide (see the module comment).
 * `fullStat: false`: undefined rather than a view that stats every log (the caller's full path
 * would stat them again).
 */
export async function openView(
  dir: IndexedDirectory,
  { fullStat: allowFullStat = true }: { readonly fullStat?: boolean } = {},
): Promise<IndexView | undefined> {
  if (!dir.useIndex) return undefined;
  const started = Date.now();
  let all: string[];
  try {
    all = await dir.fs.readdir(dir.root);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
  const read = await readIndexFile(dir.fs, dir.root, dir.maxLogBytes, true);
  if (read?.gen === undefined || read.count === 0) return undefined;
  const file = read as IndexFile & { readonly gen: string };
  let whole: IndexFile | undefined; // the columns' bytes, read when needed (`loadColumns`)
  const delta = await readDelta(dir.fs, dir.root, file.gen);
  if (delta !== undefined && delta.entries.size > COMPACT_AT) return undefined;
  const verifiedAt = delta === undefined ? file.verifiedAt : delta.verifiedAt;
  const journal = await readJournal(dir.fs, dir.root, delta?.journal ?? file.journal);
  if (journal === undefined) return undefined; // no journal can be kept: the full listing records no mark
  // The journal's mark lost, or the last full stat too old: every log is stat'ed and compared
  // with the recorded identities (the columns, without an object per log).
  const fullStat = journal.released === undefined || verifiedAt === undefined || started - verifiedAt >= FULL_STAT_MS;
  if (fullStat && !allowFullStat) return undefined;
  const present = new Set<string>();
  const listed: string[] = []; // the same names in the directory's order, for the digest
  const locked = new Set<string>();
  for (const name of all)
    if (name.endsWith(LOG_SUFFIX)) {
      present.add(name);
      listed.push(name);
    } else if (name.endsWith(LOCK_SUFFIX)) locked.add(`${name.slice(0, -LOCK_SUFFIX.length)}${LOG_SUFFIX}`);
  // The same names as the index's: every listed log is known, none is gone (the columns stay undecoded).
  const digest = namesDigest(listed);
  const sameNames = digest === (delta?.names ?? file.names);
  let attempted = false;
  const loadColumns = async (): Promise<void> => {
    if (attempted) return;
    attempted = true;
    whole = await file.whole();
  };
  if (!sameNames) await loadColumns();
  let columns: { heads: HeadColumns; position: Map<string, number> } | null | undefined;
  const decoded = (): { heads: HeadColumns; position: Map<string, number> } | undefined => {
    if (!attempted) throw new NeedColumns();
    if (columns === undefined) {
      columns = null;
      try {
        const heads = whole === undefined ? undefined : headColumns(JSON.parse(whole.heads()), file.count);
        if (heads !== undefined) {
          const position = new Map<string, number>();
          for (let i = 0; i < heads.names.length; i++) {
            const name = heads.names[i];
            if (typeof name === "string" && !position.has(name)) position.set(name, i);
          }
          columns = { heads, position };
        }
      } catch {
        // not JSON: columns stays null
      }
    }
    if (columns === null) throw new GarbledIndex();
    return columns;
  };
  const stored = (name: string): IndexEntry | undefined => {
    const change = delta?.entries.get(name);
    if (change !== undefined) return change.entry;
    if (sameNames && !present.has(name)) return undefined;
    const { heads, position } = decoded()!;
    const at = position.get(name);
    const entry = at === undefined ? undefined : heads.at(at);
    return entry?.name === name ? entry : undefined;
  };
  const known = (name: string): boolean => {
    if (sameNames) return present.has(name);
    const change = delta?.entries.get(name);
    return change !== undefined ? change.entry !== undefined : decoded()!.position.has(name);
  };
  const released = journal.released ?? new Set<string>();
  const toStat: string[] = fullStat ? [...present] : [];
  if (!fullStat && sameNames) {
    // Every listed log is known: only the released and the locked ones (a few) need a stat.
    for (const name of released) if (present.has(name)) toStat.push(name);
    for (const name of locked) if (present.has(name) && !released.has(name)) toStat.push(name);
  } else if (!fullStat)
    for (const name of present) if (released.has(name) || locked.has(name) || !known(name)) toStat.push(name);
  // A recorded identity to compare with (a locked log's, every log's in a full stat) may be in the columns.
  if (toStat.some((name) => !released.has(name) && !delta?.entries.has(name))) await loadColumns();
  const restat = await statAll(dir, toStat);
  /** Whether `name`'s recorded entry is for `identity` (compared in the columns for a base entry). */
  const storedIs = (name: string, identity: FileIdentity): boolean => {
    const change = delta?.entries.get(name);
    if (change !== undefined) return change.entry !== undefined && sameIdentity(change.entry, identity);
    if (sameNames && !present.has(name)) return false;
    const { heads, position } = decoded()!;
    const at = position.get(name);
    return at !== undefined && heads.identityIs(at, identity);
  };
  const identities: Identities = {
    get: (name: string): FileIdentity | null | undefined =>
      restat.has(name) ? restat.get(name) : present.has(name) ? stored(name) : undefined,
    has: (name: string): boolean => restat.has(name) || present.has(name),
  };
  const gone = (): string[] => {
    if (sameNames) return [];
    const out: string[] = [];
    for (const name of decoded()!.position.keys()) if (!present.has(name) && !delta?.entries.has(name)) out.push(name);
    for (const [name, { entry }] of delta?.entries ?? []) if (entry !== undefined && !present.has(name)) out.push(name);
    return out;
  };
  const special = (): Map<string, IndexEntry> => {
    const out = new Map<string, IndexEntry>();
    for (const raw of file.special ?? []) {
      const entry = decodeEntry(raw);
      // A garbled special entry: its log cannot be vouched for here.
      if (entry === undefined) throw new GarbledIndex();
      if (!delta?.entries.has(entry.name)) out.set(entry.name, entry);
    }
    for (const [name, { entry }] of delta?.entries ?? [])
      if (entry !== undefined && isSpecial(entry)) out.set(name, entry);
    return out;
  };
  return {
    file,
    delta,
    present,
    listed,
    restat,
    released,
    journal: journal.mark,
    chain: [file.gen, ...(delta?.gens ?? [])],
    stored,
    gone,
    identities,
    special,
    heads: () => decoded()?.heads,
    loadColumns,
    digest,
    storedIs,
    verifiedAt: fullStat ? started : verifiedAt,
    fullStat,
  };
}

/** Thrown when the index's columns or special entries turn out malformed: the full listing decides. */
export class GarbledIndex extends Error {}

/** Thrown when a base entry's columns are needed before `loadColumns()`: load them, and start over. */
export class NeedColumns extends Error {}

/** Whether the stored entry of `name` is for the file as it is now (stat'ed, or unchanged by the journal). */
export function unchanged(view: IndexView, name: string): boolean {
  if (view.released.has(name)) return false; // released since: read again (its old entry is not decoded)
  if (!view.restat.has(name)) return view.stored(name) !== undefined;
  const now = view.restat.get(name);
  return now !== null && now !== undefined && view.storedIs(name, now);
}
