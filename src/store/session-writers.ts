// SessionWriters: what a store does for the sessions it holds for writing, whatever keeps the
// bytes — the table of writers, the closed flag, create's checks, an append (checked, encoded,
// buffered), flushes serialized per session, attach and its "known log" rule, the load and close
// preludes. A backend (jsonl-store.ts, postgres/postgres-store.ts) adds only how a log is
// created, loaded, made durable and released; the store contract suite runs both.
//
// The known log: per writer, the Session whose events are exactly the log written so far (the
// one `create` checked its seed with, the one a load returned, or one attached while it is that
// log). A store may serve it again without reading (the JSONL load cache, PostgreSQL's known
// logs) and prove a fork's seed by identity with it. Any append that is not that session's own
// commit makes the log no known session's.
import { previewJson } from "../json/index.js";
import {
  isSafeSessionId,
  Session,
  SessionError,
  type SessionEvent,
  type SessionMeta,
  validateSessionMeta,
} from "../session/index.js";
import { checkAppendBatch } from "./append-batch.js";
import { forwardCommits } from "./forward-commits.js";
import { type SessionPersistence, StoreError } from "./types.js";

/** What every backend's writer keeps; a backend's writer type extends it. */
export interface WriterState {
  /** Committed plus buffered events: the seq the next appended event must have. */
  nextSeq: number;
  /** Encoded events not yet durable. */
  buffer: string[];
  /** Serializes this session's flushes. */
  flushing: Promise<void>;
  /** The known log (module comment); undefined once anything else was appended. */
  session: Session | undefined;
}

/** What a backend tells the core. */
export interface WriterBackend<W extends WriterState> {
  /** An event as the backend stores it (one JSONL line, the text of one row). */
  encode(event: SessionEvent): string;
  /** Makes `writer`'s buffer durable; never runs twice at once for one session. On failure the buffer is kept. */
  flushWriter(writer: W): Promise<void>;
  /** After a batch was buffered (the PostgreSQL store takes the session's title from it). */
  appended?(writer: W, events: readonly SessionEvent[]): void;
  /** Where session `id` is kept, as messages name it. */
  whereOf(id: string): string;
  /** The file a StoreError about session `id` names, when the backend keeps one per session. */
  fileOf?(id: string): string;
}

/** `id` when it is a safe session id, else `StoreError('invalid-id')`. */
export function checkSessionId(id: unknown): string {
  if (typeof id !== "string" || !isSafeSessionId(id))
    throw new StoreError("invalid-id", `${previewJson(id)} is not a valid session id`);
  return id;
}

/**
 * Whether `session` is `writer`'s log: the same length as the log written so far, the same last
 * event object as the known log's (an event object is appended to one Session and shared only
 * with prefixes of it, so the events before it are the same objects too), the same header.
 */
export function isKnownLog(writer: WriterState, session: Session): boolean {
  const known = writer.session;
  if (known === undefined) return false;
  if (known === session) return true;
  const n = writer.nextSeq;
  if (session.length !== n || known.length < n) return false;
  if (n > 0 && session.eventAt(n - 1) !== known.eventAt(n - 1)) return false;
  // Both stores keep the header as this JSON object's text.
  return JSON.stringify(session.header) === JSON.stringify(known.header);
}

export class SessionWriters<W extends WriterState> {
  readonly #backend: WriterBackend<W>;
  readonly #writers = new Map<string, W>();
  /** Ids a create or a writable load is opening now (`opening`), each with that opening. */
  readonly #opening = new Map<string, Promise<unknown>>();
  /** Ids being released (`releasing`): an opening of one waits for its release to end. */
  readonly #releasing = new Map<string, Promise<void>>();
  /** Set by `close`: no opening starts from then on. */
  #closing = false;
  #closed = false;

  constructor(backend: WriterBackend<W>) {
    this.#backend = backend;
  }

  get(id: string): W | undefined {
    return this.#writers.get(id);
  }

  has(id: string): boolean {
    return this.#writers.has(id);
  }

  set(id: string, writer: W): void {
    this.#writers.set(id, writer);
  }

  delete(id: string): void {
    this.#writers.delete(id);
  }

  values(): IterableIterator<W> {
    return this.#writers.values();
  }

  /**
   * Runs `open` — a create, or a load that is not read-only, of session `id` — with `id` reserved
   * until it settles: another of the same id meanwhile is refused `already-open`. The backends'
   * checks (`created`, `beforeLoad`) run before their first await, but their writers are added
   * after it: without the reservation two opens of one id in one store both got through —
   * on PostgreSQL, under one lease owner, two writers of one log (found from outside).
   */
  opening<T>(id: unknown, readOnly: boolean, open: () => Promise<T>): Promise<T> {
    if (readOnly || typeof id !== "string") return open();
    if (this.#closing) return Promise.reject(new StoreError("closed", "the store is closing"));
    // A release under way still holds the id (its lease or lock is let go last): wait for it.
    const released = this.#releasing.get(id);
    if (released !== undefined) {
      const again = (): Promise<T> => this.opening(id, readOnly, open);
      return released.then(again, again);
    }
    if (this.#opening.has(id))
      return Promise.reject(
        new StoreError("already-open", `session ${id} is being opened for writing in this store`, this.#place(id)),
      );
    const run = open().finally(() => this.#opening.delete(id));
    this.#opening.set(id, run);
    return run;
  }

  /**
   * Runs `release` of session `id`, holding the id until it ends: a writer leaves the table before
   * its lease or lock is let go, and an opening in between took it again, then lost it to that
   * last step — on PostgreSQL, under one lease owner, two writers of one log (found from outside).
   */
  releasing(id: string, release: () => Promise<void>): Promise<void> {
    const run: Promise<void> = release().finally(() => {
      if (this.#releasing.get(id) === run) this.#releasing.delete(id);
    });
    this.#releasing.set(id, run);
    return run;
  }

  /** Throws `closed` once the store closed. */
  ensureOpen(): void {
    if (this.#closed) throw new StoreError("closed", "the store is closed");
  }

  /** The writer of session `id`, or `not-open`. */
  writer(id: string): W {
    const writer = this.#writers.get(id);
    if (writer === undefined)
      throw new StoreError("not-open", `session ${id} is not open for writing in this store (create or load it first)`);
    return writer;
  }

  /**
   * Create's checks, before the backend writes anything: the store is open, the id is safe, the
   * header and the seed are a valid log (`corrupt` otherwise), this store does not hold the id
   * already (`exists`). Returns the session over the seed: the new writer's known log.
   */
  created(header: SessionMeta, seed: readonly SessionEvent[]): Session {
    this.ensureOpen();
    const id = checkSessionId(header?.id);
    let created: Session;
    try {
      validateSessionMeta(header);
      created = Session.fromLog(header, seed); // a Session's events view is shared, not re-validated
    } catch (e) {
      if (e instanceof SessionError)
        throw new StoreError("corrupt", `cannot create session: ${e.message}`, { cause: e });
      throw e;
    }
    if (this.#writers.has(id))
      throw new StoreError("exists", `session ${id} already exists (${this.#backend.whereOf(id)})`, this.#place(id));
    return created;
  }

  /**
   * A batch into session `id`'s buffer (rejected whole if its seqs do not continue the log).
   * `from` is the session whose commit it is (attach, repair); anything else — a direct
   * `append`, another session — makes the log no known session's.
   */
  append(from: Session | undefined, id: string, events: readonly SessionEvent[]): void {
    this.ensureOpen();
    const writer = this.writer(id);
    checkAppendBatch(id, writer.nextSeq, events);
    for (const event of events) writer.buffer.push(this.#backend.encode(event));
    writer.nextSeq += events.length;
    this.#backend.appended?.(writer, events);
    if (from === undefined || from !== writer.session) writer.session = undefined;
  }

  /** Flushes session `id` (every session when undefined), each after its previous flush. */
  async flush(id?: string): Promise<void> {
    this.ensureOpen();
    const ids = id === undefined ? [...this.#writers.keys()] : [id];
    for (const each of ids) {
      const writer = this.writer(each);
      const run = writer.flushing.then(() => this.#backend.flushWriter(writer));
      writer.flushing = run.catch(() => undefined);
      await run;
    }
  }

  /** Wires `session` to the store; it becomes the known log when it is that log (`isKnownLog`). */
  attach(session: Session): SessionPersistence {
    const writer = this.#writers.get(session.id);
    if (writer !== undefined && writer.session !== session && isKnownLog(writer, session)) writer.session = session;
    return forwardCommits(session, {
      append: (id, events) => this.append(session, id, events),
      flush: (id) => this.flush(id),
    });
  }

  /**
   * Load's prelude: the store is open; a session this store holds loads read-only only (after
   * its buffer is flushed, so the load sees it), never writable (`already-open`).
   */
  async beforeLoad(id: string, readOnly: boolean): Promise<void> {
    this.ensureOpen();
    if (!this.#writers.has(id)) return;
    if (!readOnly)
      throw new StoreError("already-open", `session ${id} is already open for writing in this store`, this.#place(id));
    await this.flush(id);
  }

  /**
   * Releases every session with `release`. A session whose flush failed stays open with its
   * buffer: then the store is not closed (closing again retries) and the first failure is
   * thrown. Otherwise the store is closed, `cleanup` runs, and any failure is thrown after it.
   */
  async close(release: (id: string) => Promise<void>, cleanup?: () => Promise<void>): Promise<void> {
    if (this.#closed) return;
    // Openings and releases under way end first (the openings' writers are then released with the
    // rest, a release's lock or lease is let go before close resolves); no opening starts now.
    this.#closing = true;
    await Promise.allSettled([...this.#opening.values(), ...this.#releasing.values()]);
    const errors: unknown[] = [];
    for (const id of [...this.#writers.keys()]) await release(id).catch((e: unknown) => errors.push(e));
    if (this.#writers.size > 0) throw errors[0];
    this.#closed = true;
    await cleanup?.();
    if (errors.length > 0) throw errors[0];
  }

  #place(id: string): { file?: string } {
    return this.#backend.fileOf === undefined ? {} : { file: this.#backend.fileOf(id) };
  }
}
