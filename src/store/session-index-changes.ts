// `listLogChanges(since)`: what changed in `listLogs()`'s rows since the listing of generation
// `since` (decision record 0031) — for a caller that keeps something derived from those rows
// (the CLI keeps `keelson sessions`' rendered text) and would otherwise rebuild it from 10,000
// rows to change one. Over the fast view (session-index-view.ts) only the logs that can have
// changed are read; the entries the delta holds since `since` are the other changed rows; a
// changed row is written to the delta (session-index-delta.ts) under a new generation, never
// as a rewrite of the whole index. Whenever the view does not hold, or `since` is not a
// generation of this index, the answer is every row (`listLogs`' slow path, which writes a new
// base). Rows a load must give afresh on every listing (a log a newer Keelson wrote, one that
// could not be stat'ed) are in every answer.
//
// With nothing to read this module runs alone with the view's (the light listing entry,
// listing.ts): the full listing's module (session-index.ts: loading a log, its digest, the
// messages and session layers) is loaded at its first use, once per process.
import type { Session } from "../session/index.js";
import { statError } from "./session-index-scan.js";
import type { IndexedDirectory } from "./session-index-scan.js";
import { type DeltaChange, writeDelta } from "./session-index-delta.js";
import { hasKeptResult, type IndexEntry, type ListedLog, namesDigest, rowOf, usable } from "./session-index-entry.js";
import { newGeneration } from "./session-index-file.js";
import { GarbledIndex, type IndexView, NeedColumns, openView, unchanged } from "./session-index-view.js";

let fullListing: Promise<typeof import("./session-index.js")> | undefined;
/** The full listing's module (session-index.ts), loaded once: only a listing that reads a log needs it. */
const full = (): Promise<typeof import("./session-index.js")> => (fullListing ??= import("./session-index.js"));

export type LogChanges =
  /** Every row, in name order (as `listLogs()`); `generation` undefined when no index keeps them. */
  | { readonly kind: "all"; readonly generation: string | undefined; readonly logs: ListedLog[] }
  /**
   * The rows that may differ from generation `since`'s (a superset: a row may be unchanged) and
   * the names listed then that are gone. `generation` undefined: the changes could not be
   * recorded (the next listing reports them again against the same `since`).
   */
  | {
      readonly kind: "changes";
      readonly generation: string | undefined;
      readonly changed: ListedLog[];
      readonly removed: string[];
    };

type Load = (id: string) => Promise<Session>;

/** The rows changed since generation `since` (see the module comment). */
export async function listChanges(dir: IndexedDirectory, since: string | undefined, load: Load): Promise<LogChanges> {
  const view = since === undefined ? undefined : await openView(dir);
  const from = view === undefined ? -1 : view.chain.lastIndexOf(since!);
  if (view !== undefined && from >= 0)
    try {
      // Nothing is written before the end: an attempt that needs the columns starts over with them.
      return await changesSince(dir, view, from - 1, load).catch(async (e: unknown) => {
        if (!(e instanceof NeedColumns)) throw e;
        await view.loadColumns();
        return changesSince(dir, view, from - 1, load);
      });
    } catch (e) {
      if (!(e instanceof GarbledIndex)) throw e;
    }
  return { kind: "all", ...(await (await full()).listLogsAt(dir, load)) };
}

/** The changes after the delta's generation `after` (-1: since the base). */
async function changesSince(dir: IndexedDirectory, view: IndexView, after: number, load: Load): Promise<LogChanges> {
  const rows = new Map<string, ListedLog>();
  const changes = new Map<string, IndexEntry | undefined>(); // this listing's, undefined: gone
  const reload = async (name: string, entry: IndexEntry | undefined): Promise<void> => {
    const identity = view.identities.get(name);
    if (identity === null || identity === undefined) {
      rows.set(name, { kind: "unreadable", name, error: await statError(dir, name) });
      changes.set(name, undefined); // as the full listing: not kept, stat'ed again next time
      return;
    }
    const loaded = await (await full()).loadEntry(dir, name, identity, entry, view.identities, load);
    rows.set(name, loaded.row);
    if (loaded.entry !== entry) changes.set(name, loaded.entry);
  };
  const special = view.special();
  for (const name of view.restat.keys()) {
    if (view.restat.get(name) === null) changes.set(name, undefined);
    else if (!unchanged(view, name)) await reload(name, undefined);
  }
  for (const name of view.gone()) changes.set(name, undefined);
  // Rows not kept (read on every listing), and rows whose seed comes from a log that changed.
  const touched = (name: string): boolean => changes.has(name) || view.restat.has(name);
  for (const [name, entry] of special) {
    if (rows.has(name) || changes.has(name) || !view.present.has(name)) continue;
    if (!hasKeptResult(entry) || (entry.deps ?? []).some((dep) => touched(dep.name)) || !usable(entry, view.identities))
      await reload(name, entry);
  }
  const gens = [...view.chain.slice(1)];
  const entries = new Map<string, DeltaChange>(view.delta?.entries ?? []);
  if (changes.size > 0) {
    gens.push(newGeneration());
    for (const [name, entry] of changes) entries.set(name, { at: gens.length - 1, entry });
  }
  const gone = new Set([...changes].filter(([, e]) => e === undefined).map(([name]) => name));
  const moved = view.journal.offset !== (view.delta?.journal ?? view.file.journal)?.offset;
  let recorded = true;
  if (changes.size > 0 || moved || view.fullStat)
    recorded = await writeDelta(dir.fs, dir.root, {
      base: view.file.gen,
      names: gone.size === 0 ? view.digest : namesDigest(view.listed, gone),
      gens,
      journal: view.journal,
      verifiedAt: view.verifiedAt,
      entries,
    });
  const changed: ListedLog[] = [];
  const removed: string[] = [];
  for (const [name, { at, entry }] of entries) {
    if (at <= after || rows.has(name)) continue;
    if (entry === undefined) removed.push(name);
    else if (hasKeptResult(entry)) changed.push(rowOf(name, entry, Math.floor(entry.mtimeMs)));
    else await reload(name, entry);
  }
  for (const row of rows.values()) changed.push(row);
  const generation = changes.size > 0 && !recorded ? undefined : (gens.at(-1) ?? view.file.gen);
  return { kind: "changes", generation, changed, removed };
}
