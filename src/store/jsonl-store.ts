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
// is built from it with `Session.fromSession` — no read, parse or validation.
import { previewJson } from "../json/index.js";
import * as nodeFs from "node:fs/promises";
import { join } from "node:path";
import {
  isSafeSessionId,
  Session,
  SessionError,
  type SessionEvent,
  type SessionHeader,
  validateEnvelope,
  validateSessionHeader,
} from "../session/index.js";
import { defaultSessionsDir } from "../home/index.js";
import { decodeLog, encodeEventLine, encodeHeaderLine, newerLogError } from "./jsonl-codec.js";
import { fsErrorText } from "./fs-error-text.js";
import { isNotFound, peekHeader, summaryOf } from "./header-peek.js";
import { acquireLock, releaseLock } from "./lock.js";
import { persistSession } from "./persist.js";
import { publishNewFile } from "./publish.js";
import { type CachedLoad, DEFAULT_CACHE_SESSIONS, identityOf, LoadCache, sameIdentity } from "./load-cache.js";
import { MAX_LOG_BYTES, readLogFileWithInfo } from "./read-log-file.js";
import {
  type LoadedSession,
  type LoadOptions,
  type SessionPersistence,
  type SessionStore,
  type SessionSummary,
  StoreError,
} from "./types.js";

/** The file-system calls the store makes; injectable so tests can fail a write on purpose. */
export type StoreFileSystem = Pick<
  typeof nodeFs,
  "open" | "readFile" | "link" | "unlink" | "rename" | "mkdir" | "readdir" | "stat"
>;

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
}

/** A Node file-system failure as `StoreError('write-failed')` (its errno code said once); StoreErrors pass. */
function writeFailed(error: unknown, file: string, what: string): unknown {
  if (error instanceof StoreError) return error;
  return new StoreError("write-failed", `${file}: ${what} failed: ${fsErrorText(error)}`, { file, cause: error });
}

interface Writer {
  readonly file: string;
  readonly handle: nodeFs.FileHandle;
  committedBytes: number;
  nextSeq: number;
  buffer: string[];
  /** Serializes flushes of this session. */
  flushing: Promise<void>;
  /**
   * The session whose events are exactly this log's (the one a load returned, or the one
   * attached after a create); undefined once anything else was appended, so it is not cached.
   */
  session: Session | undefined;
  /** A create's header and seed, to recognise the session attached to it. */
  readonly created?: { readonly headerLine: string; readonly seed: readonly SessionEvent[] };
}

export class JsonlSessionStore implements SessionStore {
  readonly root: string;
  readonly #fs: StoreFileSystem;
  readonly #maxLogBytes: number;
  readonly #writers = new Map<string, Writer>();
  readonly #cache: LoadCache;
  #closed = false;

  constructor(options: JsonlStoreOptions = {}) {
    this.root = options.root ?? defaultSessionsDir();
    this.#fs = options.fs ?? nodeFs;
    this.#maxLogBytes = options.maxLogBytes ?? MAX_LOG_BYTES;
    this.#cache = new LoadCache(options.cacheSessions ?? DEFAULT_CACHE_SESSIONS);
  }

  /** The file that holds session `id`. */
  fileOf(id: string): string {
    if (!isSafeSessionId(id)) throw new StoreError("invalid-id", `${previewJson(id)} is not a valid session id`);
    return join(this.root, `${id}.jsonl`);
  }

  async create(header: SessionHeader, seed: readonly SessionEvent[] = []): Promise<void> {
    this.#open();
    const file = this.fileOf(header.id);
    let created: Session;
    try {
      validateSessionHeader(header);
      created = Session.fromLog(header, seed); // the seed must be a valid log (a Session's view is shared, not re-validated)
    } catch (e) {
      if (e instanceof SessionError)
        throw new StoreError("corrupt", `cannot create session: ${e.message}`, { cause: e });
      throw e;
    }
    if (this.#writers.has(header.id))
      throw new StoreError("exists", `session ${header.id} already exists (${file})`, { file });
    await this.#fs.mkdir(this.root, { recursive: true }).catch((e: unknown) => {
      throw writeFailed(e, this.root, "creating the sessions directory");
    });
    await acquireLock(this.#fs, this.#lockOf(header.id), header.id);
    try {
      const headerLine = encodeHeaderLine(header);
      const bytes = headerLine + seed.map(encodeEventLine).join("");
      await publishNewFile(this.#fs, this.root, file, bytes);
      const handle = await this.#fs.open(file, "r+"); // not "a": appends ignore the write position
      this.#cache.delete(header.id);
      this.#writers.set(header.id, {
        file,
        handle,
        committedBytes: Buffer.byteLength(bytes),
        nextSeq: seed.length,
        buffer: [],
        flushing: Promise.resolve(),
        session: created,
        created: { headerLine, seed },
      });
    } catch (e) {
      await releaseLock(this.#fs, this.#lockOf(header.id)).catch(() => undefined);
      throw writeFailed(e, file, `creating session ${header.id}`);
    }
  }

  append(sessionId: string, events: readonly SessionEvent[]): void {
    this.#appendFrom(undefined, sessionId, events);
  }

  /** `append`; `from` is the session whose commit it is (attach, repair), else the log no longer is a known session's. */
  #appendFrom(from: Session | undefined, sessionId: string, events: readonly SessionEvent[]): void {
    this.#open();
    const writer = this.#writer(sessionId);
    events.forEach((event, i) => {
      if (event?.seq !== writer.nextSeq + i) {
        throw new StoreError(
          "seq-gap",
          `session ${sessionId}: expected seq ${writer.nextSeq + i}, got ${previewJson(event?.seq)}; the batch was not buffered`,
        );
      }
      try {
        validateEnvelope(event, event.seq);
      } catch (e) {
        if (e instanceof SessionError)
          throw new StoreError(
            "invalid-event",
            `session ${sessionId}: refusing to store a malformed event: ${e.message}; the batch was not buffered`,
            { cause: e },
          );
        throw e;
      }
    });
    for (const event of events) writer.buffer.push(encodeEventLine(event));
    writer.nextSeq += events.length;
    if (from === undefined || from !== writer.session) writer.session = undefined;
  }

  async flush(sessionId?: string): Promise<void> {
    this.#open();
    const ids = sessionId === undefined ? [...this.#writers.keys()] : [sessionId];
    for (const id of ids) {
      const writer = this.#writer(id);
      const run = writer.flushing.then(() => this.#flushWriter(writer));
      writer.flushing = run.catch(() => undefined);
      await run;
    }
  }

  attach(session: Session): SessionPersistence {
    const writer = this.#writers.get(session.id);
    // The attached session becomes the one cached on release when it is the log written so far;
    // another session's appends (#appendFrom) make the log no known session's.
    if (writer !== undefined && writer.session !== session && this.#isLogOf(writer, session)) writer.session = session;
    return persistSession(session, {
      append: (id, events) => this.#appendFrom(session, id, events),
      flush: (id) => this.flush(id),
    });
  }

  /** Whether `session` holds exactly what `writer` has written since its create (cheap checks only). */
  #isLogOf(writer: Writer, session: Session): boolean {
    const created = writer.created;
    if (created === undefined || writer.nextSeq !== created.seed.length || session.length !== created.seed.length)
      return false;
    if (created.seed.length > 0 && session.events !== created.seed) return false;
    return encodeHeaderLine(session.header) === created.headerLine;
  }

  async load(sessionId: string, options: LoadOptions = {}): Promise<LoadedSession> {
    this.#open();
    const file = this.fileOf(sessionId);
    if (this.#writers.has(sessionId)) {
      if (!options.readOnly)
        throw new StoreError("already-open", `session ${sessionId} is already open for writing in this store`, {
          file,
        });
      await this.flush(sessionId);
    }
    const writable = !options.readOnly;
    const cached = await this.#cachedLoad(sessionId, file, options);
    if (cached !== undefined) return cached;
    if (writable) {
      // A log this Keelson must not write is refused before its lock is taken: nothing is touched.
      await this.#refuseNewerHeader(sessionId, file);
      await acquireLock(this.#fs, this.#lockOf(sessionId), sessionId);
    }
    try {
      return await this.#load(sessionId, file, options);
    } catch (e) {
      if (writable && !this.#writers.has(sessionId)) await releaseLock(this.#fs, this.#lockOf(sessionId));
      throw e;
    }
  }

  async list(): Promise<SessionSummary[]> {
    this.#open();
    let names: string[];
    try {
      names = await this.#fs.readdir(this.root);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw e;
    }
    const out: SessionSummary[] = [];
    for (const name of names.filter((n) => n.endsWith(".jsonl")).sort()) {
      const summary = await summaryOf(this.#fs, join(this.root, name), this.#maxLogBytes);
      if (summary !== undefined) out.push(summary);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  async release(sessionId: string): Promise<void> {
    const writer = this.#writers.get(sessionId);
    if (writer === undefined) return;
    await this.flush(sessionId); // a failure keeps the writer (and its buffer) for a retry
    this.#writers.delete(sessionId);
    await this.#remember(sessionId, writer).catch(() => this.#cache.delete(sessionId));
    await writer.handle.close();
    await releaseLock(this.#fs, this.#lockOf(sessionId));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    const errors: unknown[] = [];
    for (const id of [...this.#writers.keys()]) await this.release(id).catch((e: unknown) => errors.push(e));
    // A session whose flush failed stays open with its buffer: the store is not closed, and
    // closing again retries.
    if (errors.length > 0) throw errors[0];
    this.#closed = true;
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
    this.#cache.set(sessionId, { session, length: writer.nextSeq, identity: identityOf(info), droppedBytes: 0 });
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
        await releaseLock(this.#fs, this.#lockOf(sessionId));
        return undefined;
      }
      const handle = await this.#fs.open(file, "r+"); // not "a": appends ignore the write position
      this.#writers.set(sessionId, {
        file,
        handle,
        committedBytes: entry.identity.size,
        nextSeq: entry.length,
        buffer: [],
        flushing: Promise.resolve(),
        session,
      });
    } catch (e) {
      if (!this.#writers.has(sessionId)) await releaseLock(this.#fs, this.#lockOf(sessionId)).catch(() => undefined);
      throw e;
    }
    return { session, repaired: [], droppedBytes: 0, needsRepair: false };
  }

  async #unchanged(file: string, entry: CachedLoad): Promise<boolean> {
    try {
      return sameIdentity(identityOf(await this.#fs.stat(file)), entry.identity);
    } catch {
      return false; // removed, unreadable: the normal load reports it
    }
  }

  async #load(sessionId: string, file: string, options: LoadOptions): Promise<LoadedSession> {
    let bytes: Buffer;
    let info: { size: number; dev: number; ino: number; mtimeMs: number };
    try {
      ({ bytes, info } = await readLogFileWithInfo(this.#fs, file, this.#maxLogBytes));
    } catch (e) {
      if (isNotFound(e)) throw this.#notFound(sessionId, file);
      throw e;
    }
    const { header, events, committedBytes, tornBytes } = decodeLog(bytes, file);
    const newer = newerLogError({ header, events }, file);
    if (newer !== undefined) throw newer;
    if ((header as { id?: unknown }).id !== sessionId) {
      throw new StoreError(
        "corrupt",
        `${file}: line 1 names session ${previewJson((header as { id?: unknown }).id)}, not ${sessionId}`,
        { file, line: 1 },
      );
    }
    let session: Session;
    try {
      session = Session.fromParsedLog(header, events, options.session);
    } catch (e) {
      if (!(e instanceof SessionError)) throw e;
      const line = e.code === "invalid-header" ? 1 : e.seq === undefined ? undefined : e.seq + 2;
      throw new StoreError("corrupt", `${file}${line === undefined ? "" : `: line ${line}`}: ${e.message}`, {
        file,
        ...(line === undefined ? {} : { line }),
        cause: e,
      });
    }
    if (options.readOnly) {
      // Only a read that saw the whole file as fstat'ed is cached (a file growing meanwhile is not).
      if (bytes.length === info.size)
        this.#cache.set(sessionId, {
          session,
          length: session.length,
          identity: identityOf(info),
          droppedBytes: tornBytes,
        });
      else this.#cache.delete(sessionId);
      return { session, repaired: [], droppedBytes: tornBytes, needsRepair: session.openTurn !== null };
    }

    const handle = await this.#fs.open(file, "r+"); // not "a": appends ignore the write position
    if (tornBytes > 0) {
      await handle.truncate(committedBytes);
      await handle.sync();
    }
    this.#writers.set(sessionId, {
      file,
      handle,
      committedBytes,
      nextSeq: session.length,
      buffer: [],
      flushing: Promise.resolve(),
      session,
    });
    this.#cache.delete(sessionId); // refreshed on release
    const repaired = session.repair();
    if (repaired.length > 0) {
      this.#appendFrom(session, sessionId, repaired);
      await this.flush(sessionId);
    }
    return { session, repaired, droppedBytes: tornBytes, needsRepair: false };
  }

  async #flushWriter(writer: Writer): Promise<void> {
    if (writer.buffer.length === 0) return;
    const pending = writer.buffer;
    writer.buffer = [];
    const bytes = Buffer.from(pending.join(""));
    try {
      let written = 0;
      while (written < bytes.length) {
        const { bytesWritten } = await writer.handle.write(
          bytes,
          written,
          bytes.length - written,
          writer.committedBytes + written,
        );
        written += bytesWritten;
      }
      await writer.handle.datasync();
      writer.committedBytes += bytes.length;
    } catch (cause) {
      // Roll back to the committed size; keep the batch (ahead of anything appended meanwhile).
      writer.buffer = [...pending, ...writer.buffer];
      await writer.handle.truncate(writer.committedBytes).catch(() => undefined);
      throw new StoreError(
        "write-failed",
        `${writer.file}: flushing ${pending.length} event(s) failed and was rolled back: ${fsErrorText(cause)}`,
        { file: writer.file, cause },
      );
    }
  }

  /** Before a writable load takes the lock: refuses a missing log, and one whose header is a newer version. */
  async #refuseNewerHeader(sessionId: string, file: string): Promise<void> {
    let peeked: { header: unknown } | undefined;
    try {
      peeked = await peekHeader(this.#fs, file, this.#maxLogBytes);
    } catch (e) {
      if (isNotFound(e)) throw this.#notFound(sessionId, file);
      throw e;
    }
    const newer = peeked === undefined ? undefined : newerLogError({ header: peeked.header, events: [] }, file);
    if (newer !== undefined) throw newer;
  }

  #notFound(sessionId: string, file: string): StoreError {
    return new StoreError("not-found", `no session ${sessionId} (${file} does not exist)`, { file });
  }

  #writer(sessionId: string): Writer {
    const writer = this.#writers.get(sessionId);
    if (writer === undefined) {
      throw new StoreError(
        "not-open",
        `session ${sessionId} is not open for writing in this store (create or load it first)`,
      );
    }
    return writer;
  }

  #lockOf(id: string): string {
    return join(this.root, `${id}.lock`);
  }

  #open(): void {
    if (this.#closed) throw new StoreError("closed", "the store is closed");
  }
}
