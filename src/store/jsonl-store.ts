// JsonlSessionStore: the embedded default store. One file per session under
// `$KEELSON_HOME/sessions` (see home.ts): `<id>.jsonl` plus `<id>.lock` while a writer holds it.
//
// Durability: the first write (header + seed) is published atomically (publish.ts). Appends are
// buffered and written + fsynced on `flush()`. A failed write is truncated back to the committed
// size and the batch stays buffered, so a retry cannot duplicate seqs. Load reads regular files
// only, up to a size limit (read-log-file.ts); drops a torn final line (truncating it away when
// writable); refuses corruption inside the committed region with the file and line; refuses a
// log written by a newer Keelson without touching it (a writable load checks the header before
// taking the lock); and closes an open final turn with crash-repair closers written durably.
//
// Load cache (load-cache.ts): the validated Session of the last load or clean release of each
// session is kept with the file's identity; a later load whose `stat` shows the same identity
// is built from it with `Session.fromSession` — no read, parse or validation (a fork stored by
// reference: once its source is checked to hold the seed still, as a normal load checks it).
import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import { Session, type SessionEvent, type SessionMeta } from "../session/index.js";
import { defaultSessionsDir } from "../home/index.js";
import { extendLayout, type FileLayout, sha256Over } from "./file-layout.js";
import { encodeEventLine, encodeMetaLine, FORMAT, newerLogError } from "./jsonl-codec.js";
import { fsErrorText, isNotFound } from "./fs-error-text.js";
import { peekMeta } from "./meta-peek.js";
import { acquireLock, releaseLock } from "./lock.js";
import { flushWriter, type Writer } from "./jsonl-writer.js";
import { publishNewFile } from "./publish.js";
import { type CachedLoad, DEFAULT_CACHE_SESSIONS, identityOf, LoadCache, sameIdentity } from "./load-cache.js";
import { MAX_LOG_BYTES } from "./read-log-file.js";
import { encodeReferencingMetaLine, type SeedFrom } from "./seed-reference.js";
import { LogReader, notFound, type ReadLog } from "./log-reader.js";
import { referenceFor, type SeedSource } from "./seed-source.js";
import { checkSessionId, SessionWriters } from "./session-writers.js";
import type { StoreFileSystem } from "./store-file-system.js";
import { type ListedLog, listLogs, listSummaries } from "./session-index.js";
import { type LogChanges, listChanges } from "./session-index-changes.js";
import { latestSummary } from "./session-index-latest.js";
import type { IndexedDirectory } from "./session-index-scan.js";
import { journalRelease } from "./session-index-journal.js";
import {
  type LoadedSession,
  type LoadOptions,
  type SessionPersistence,
  type SessionStore,
  type SessionSummary,
  StoreError,
} from "./types.js";
import { APPEND_FLAGS, PRIVATE_DIR } from "./file-modes.js";

export interface JsonlStoreOptions {
  /** Directory holding the session files; defaults to `$KEELSON_HOME/sessions`. */
  readonly root?: string;
  readonly fs?: StoreFileSystem;
  /** The largest log a load reads (bytes); larger files are refused with 'too-large'. Default `MAX_LOG_BYTES` (1 GiB). */
  readonly maxLogBytes?: number;
  /**
   * How many loaded sessions to keep in memory for a later load of the same id whose file is
   * unchanged (least recently used dropped first); 0 disables the cache. Default 64.
   */
  readonly cacheSessions?: number;
  /**
   * Whether listings keep the summary index `<root>/.sessions-index/` (session-index.ts), so
   * they re-read only the logs that changed since the last listing. Default true; false reads
   * every log on every listing and leaves no index.
   */
  readonly index?: boolean;
}

/** A Node file-system failure as `StoreError('write-failed')` (its errno code said once); StoreErrors pass. */
function writeFailed(error: unknown, file: string, what: string): unknown {
  if (error instanceof StoreError) return error;
  return new StoreError("write-failed", `${file}: ${what} failed: ${fsErrorText(error)}`, { file, cause: error });
}

export class JsonlSessionStore implements SessionStore {
  readonly root: string;
  readonly #fs: StoreFileSystem;
  readonly #maxLogBytes: number;
  readonly #writers: SessionWriters<Writer>;
  readonly #cache: LoadCache;
  readonly #reader: LogReader;
  readonly #indexed: IndexedDirectory;

  constructor(options: JsonlStoreOptions = {}) {
    this.root = options.root ?? defaultSessionsDir();
    this.#fs = options.fs ?? nodeFs;
    this.#maxLogBytes = options.maxLogBytes ?? MAX_LOG_BYTES;
    this.#writers = new SessionWriters<Writer>({
      encode: encodeEventLine,
      flushWriter,
      whereOf: (id) => this.fileOf(id),
      fileOf: (id) => this.fileOf(id),
    });
    this.#cache = new LoadCache(options.cacheSessions ?? DEFAULT_CACHE_SESSIONS);
    this.#indexed = { fs: this.#fs, root: this.root, maxLogBytes: this.#maxLogBytes, useIndex: options.index ?? true };
    this.#reader = new LogReader({
      fs: this.#fs,
      maxLogBytes: this.#maxLogBytes,
      fileOf: (id) => this.fileOf(id),
      known: this.#known,
      readSource: (id, log) => {
        if (!this.#writers.has(id)) this.#cacheRead(id, log);
      },
    });
  }

  /** The sessions directory (what a message names for the store as a whole). */
  get label(): string {
    return this.root;
  }

  /** Where session `id` is kept: its log file (`fileOf`). */
  whereOf(id: string): string {
    return this.fileOf(id);
  }

  /** The file that holds session `id`. */
  fileOf(id: string): string {
    return join(this.root, `${checkSessionId(id)}.jsonl`);
  }

  create(header: SessionMeta, seed: readonly SessionEvent[] = []): Promise<void> {
    return this.#writers.opening(header?.id, false, () => this.#create(header, seed));
  }

  async #create(header: SessionMeta, seed: readonly SessionEvent[]): Promise<void> {
    const created = this.#writers.created(header, seed);
    const file = this.fileOf(header.id);
    await this.#fs.mkdir(this.root, { recursive: true, mode: PRIVATE_DIR }).catch((e: unknown) => {
      throw writeFailed(e, this.root, "creating the sessions directory");
    });
    // A fork of a log this store holds is written as a reference to it: no copy of the seed.
    const reference = await referenceFor(header, seed, this.#known, this.#fs, this.#maxLogBytes);
    await acquireLock(this.#fs, this.#lockOf(header.id), header.id);
    try {
      const firstLine =
        reference === undefined ? encodeMetaLine(header) : encodeReferencingMetaLine(FORMAT, header, reference);
      const seedLines = reference === undefined ? seed.map(encodeEventLine) : [];
      const bytes = firstLine + seedLines.join("");
      await publishNewFile(this.#fs, this.root, file, bytes);
      const handle = await this.#fs.open(file, APPEND_FLAGS);
      const layout: FileLayout = {
        firstSeq: reference === undefined ? 0 : seed.length,
        lineEnds: [Buffer.byteLength(firstLine)],
        seedFrom: reference,
      };
      extendLayout(layout, layout.lineEnds[0]!, seedLines);
      this.#cache.delete(header.id);
      this.#writers.set(header.id, {
        file,
        handle,
        committedBytes: Buffer.byteLength(bytes),
        layout,
        hash: sha256Over(bytes),
        nextSeq: seed.length,
        buffer: [],
        flushing: Promise.resolve(),
        session: created,
      });
    } catch (e) {
      await this.#unlock(header.id).catch(() => undefined);
      throw writeFailed(e, file, `creating session ${header.id}`);
    }
  }

  /**
   * The session whose first `seedLength` events are the seed of the referencing log in `file`
   * (read-only; the source is looked up in this store's root and checked as a load checks it):
   * for readers that decode a log file themselves, like the CLI's FILE targets.
   */
  async seedOf(file: string, seedFrom: SeedFrom, seedLength: number): Promise<Session> {
    this.#writers.ensureOpen();
    return this.#reader.seedOf(file, seedFrom, seedLength, []);
  }

  append(sessionId: string, events: readonly SessionEvent[]): void {
    this.#writers.append(undefined, sessionId, events);
  }

  flush(sessionId?: string): Promise<void> {
    return this.#writers.flush(sessionId);
  }

  attach(session: Session): SessionPersistence {
    return this.#writers.attach(session);
  }

  load(sessionId: string, options: LoadOptions = {}): Promise<LoadedSession> {
    return this.#writers.opening(sessionId, options?.readOnly === true, () => this.#open(sessionId, options));
  }

  async #open(sessionId: string, options: LoadOptions): Promise<LoadedSession> {
    this.#writers.ensureOpen();
    const file = this.fileOf(sessionId);
    await this.#writers.beforeLoad(sessionId, options.readOnly === true);
    const writable = !options.readOnly;
    const cached = await this.#cachedLoad(sessionId, file, options);
    if (cached !== undefined) return cached;
    if (writable) {
      // A log this Keelson must not write is refused before its lock is taken: nothing is touched.
      await this.#refuseNewerLog(sessionId, file);
      await acquireLock(this.#fs, this.#lockOf(sessionId), sessionId);
    }
    try {
      return await this.#load(sessionId, file, options);
    } catch (e) {
      if (writable && !this.#writers.has(sessionId)) await this.#unlock(sessionId);
      throw e;
    }
  }

  async list(): Promise<SessionSummary[]> {
    this.#writers.ensureOpen();
    return listSummaries(this.#indexed);
  }

  /**
   * The most recently written session `list()` would list (the newest of `list()` by
   * `moreRecent`), or undefined: `keelson resume --last`. Reads only that log's header (from the
   * summary index while the log is unchanged), not every summary.
   */
  async latest(): Promise<SessionSummary | undefined> {
    this.#writers.ensureOpen();
    return latestSummary(this.#indexed);
  }

  /**
   * Every `*.jsonl` file in the directory, in name order, as a read-only `load` sees it: a
   * readable session's digest (turns, events, last prompt, open turn) or why it cannot be loaded.
   * Only logs changed since the last listing are read (the summary index).
   */
  async listLogs(): Promise<ListedLog[]> {
    this.#writers.ensureOpen();
    return listLogs(this.#indexed, async (id) => (await this.load(id, { readOnly: true })).session);
  }

  /**
   * What changed in `listLogs()`'s rows since the listing of generation `since` (a generation this
   * method returned): the rows that may differ and the names gone — or every row, when `since` is
   * undefined or not this index's. For a caller that keeps something derived from the rows
   * (`keelson sessions` keeps its rendered listing) and wants to patch it, not rebuild it.
   * Decision record 0031.
   */
  async listLogChanges(since?: string): Promise<LogChanges> {
    this.#writers.ensureOpen();
    return listChanges(this.#indexed, since, async (id) => (await this.load(id, { readOnly: true })).session);
  }

  release(sessionId: string): Promise<void> {
    return this.#writers.releasing(sessionId, () => this.#release(sessionId));
  }

  async #release(sessionId: string): Promise<void> {
    const writer = this.#writers.get(sessionId);
    if (writer === undefined) return;
    await this.flush(sessionId); // a failure keeps the writer (and its buffer) for a retry
    this.#writers.delete(sessionId);
    await this.#remember(sessionId, writer).catch(() => this.#cache.delete(sessionId));
    await writer.handle.close();
    await this.#unlock(sessionId);
  }

  close(): Promise<void> {
    return this.#writers.close((id) => this.release(id));
  }

  /** Caches what a writer wrote, if it is exactly a known session's log (fstat of the open file). */
  async #remember(sessionId: string, writer: Writer): Promise<void> {
    const session = writer.session;
    if (session === undefined || session.length !== writer.nextSeq || writer.buffer.length > 0) {
      this.#cache.delete(sessionId);
      return;
    }
    const info = await writer.handle.stat();
    if (info.size !== writer.committedBytes) return this.#cache.delete(sessionId);
    this.#cache.set(sessionId, {
      session,
      length: writer.nextSeq,
      identity: identityOf(info),
      droppedBytes: 0,
      layout: writer.layout,
      hash: writer.hash,
      prefixHashes: new Map(),
    });
  }

  /** The cached session when the file is unchanged since it was cached (else undefined: load normally). */
  async #cachedLoad(sessionId: string, file: string, options: LoadOptions): Promise<LoadedSession | undefined> {
    const entry = this.#cache.get(sessionId);
    if (entry === undefined) return undefined;
    if (!(await this.#unchanged(file, entry))) return undefined;
    const build = (): Session =>
      Session.fromSession(entry.session, entry.session.header, entry.length, options.session);
    if (options.readOnly) {
      const session = build();
      return { session, repaired: [], droppedBytes: entry.droppedBytes, needsRepair: session.openTurn !== null };
    }
    // A writable load from the cache needs nothing written: no torn tail, no open turn.
    if (entry.droppedBytes > 0) return undefined;
    const session = build();
    if (session.openTurn !== null) return undefined;
    await acquireLock(this.#fs, this.#lockOf(sessionId), sessionId);
    try {
      if (!(await this.#unchanged(file, entry))) {
        await this.#unlock(sessionId);
        return undefined;
      }
      const handle = await this.#fs.open(file, APPEND_FLAGS);
      this.#writers.set(sessionId, {
        file,
        handle,
        committedBytes: entry.identity.size,
        layout: entry.layout, // append-only: the entry's offsets stay true for its length
        hash: entry.hash.copy(),
        nextSeq: entry.length,
        buffer: [],
        flushing: Promise.resolve(),
        session,
      });
    } catch (e) {
      if (!this.#writers.has(sessionId)) await this.#unlock(sessionId).catch(() => undefined);
      throw e;
    }
    return { session, repaired: [], droppedBytes: 0, needsRepair: false };
  }

  /**
   * Whether `entry` still holds the file's log: the file unchanged since it was cached and — for a
   * fork stored by reference — its source still holding the seed (a source changed or removed
   * since makes the normal load report `seed-unavailable`, not the cache serve the old seed).
   */
  async #unchanged(file: string, entry: CachedLoad): Promise<boolean> {
    try {
      if (!sameIdentity(identityOf(await this.#fs.stat(file)), entry.identity)) return false;
    } catch {
      return false; // removed, unreadable: the normal load reports it
    }
    const { seedFrom, firstSeq } = entry.layout;
    if (seedFrom === undefined) return true;
    try {
      await this.#reader.seedOf(file, seedFrom, firstSeq, [entry.session.id]);
      return true;
    } catch {
      return false;
    }
  }

  async #load(sessionId: string, file: string, options: LoadOptions): Promise<LoadedSession> {
    const log = await this.#reader.read(sessionId, file, options.session ?? {}, [sessionId]);
    const { session, committedBytes, tornBytes } = log;
    if (options.readOnly) {
      this.#cacheRead(sessionId, log);
      return { session, repaired: [], droppedBytes: tornBytes, needsRepair: session.openTurn !== null };
    }

    const handle = await this.#fs.open(file, APPEND_FLAGS);
    if (tornBytes > 0) {
      await handle.truncate(committedBytes);
      await handle.sync();
    }
    this.#writers.set(sessionId, {
      file,
      handle,
      committedBytes,
      layout: log.layout,
      hash: log.hash,
      nextSeq: session.length,
      buffer: [],
      flushing: Promise.resolve(),
      session,
    });
    this.#cache.delete(sessionId); // refreshed on release
    const repaired = session.repair();
    if (repaired.length > 0) {
      this.#writers.append(session, sessionId, repaired);
      await this.flush(sessionId);
    }
    return { session, repaired, droppedBytes: tornBytes, needsRepair: false };
  }

  /** A read-only load's result enters the cache when the read saw the whole file as fstat'ed (not one growing meanwhile). */
  #cacheRead(sessionId: string, log: ReadLog): void {
    if (!log.complete) {
      this.#cache.delete(sessionId);
      return;
    }
    this.#cache.set(sessionId, {
      session: log.session,
      length: log.session.length,
      identity: identityOf(log.info),
      droppedBytes: log.tornBytes,
      layout: log.layout,
      hash: log.hash,
      prefixHashes: new Map(),
    });
  }

  /** What this store holds of stored session `id` without reading it: its open writer's committed log, or an unchanged cache entry. */
  readonly #known = async (id: string): Promise<SeedSource | undefined> => {
    const writer = this.#writers.get(id);
    if (writer !== undefined) {
      if (writer.session === undefined) return undefined;
      const { layout } = writer;
      return {
        file: writer.file,
        session: writer.session,
        length: layout.firstSeq + layout.lineEnds.length - 1,
        layout,
        committedBytes: writer.committedBytes,
        hash: writer.hash,
      };
    }
    const entry = this.#cache.get(id);
    const file = this.fileOf(id);
    if (entry === undefined || !(await this.#unchanged(file, entry))) return undefined;
    return { ...entry, file, committedBytes: entry.identity.size - entry.droppedBytes };
  };

  /** Before a writable load takes the lock: refuses a missing log, and one whose header is a newer version. */
  async #refuseNewerLog(sessionId: string, file: string): Promise<void> {
    let peeked: { header: unknown } | undefined;
    try {
      peeked = await peekMeta(this.#fs, file, this.#maxLogBytes);
    } catch (e) {
      if (isNotFound(e)) throw notFound(sessionId, file);
      throw e;
    }
    const newer = peeked === undefined ? undefined : newerLogError({ header: peeked.header, events: [] }, file);
    if (newer !== undefined) throw newer;
  }

  /**
   * Gives up session `id`'s writer lock, once every write to its log is done: the release is
   * journaled first (session-index-journal.ts), so listings know to stat the log again.
   */
  async #unlock(id: string): Promise<void> {
    await journalRelease(this.#fs, this.root, id);
    await releaseLock(this.#fs, this.#lockOf(id));
  }

  #lockOf(id: string): string {
    return join(this.root, `${id}.lock`);
  }
}
