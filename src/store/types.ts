// The persistence contract every session store implements (JSONL now; SQLite and PostgreSQL
// later), and the store layer's error type. `test/support/store-contract.ts` pins the contract.
import type { Session, SessionEvent, SessionMeta, SessionOptions } from "../session/index.js";
import { KeelsonError } from "../errors/index.js";

/** A live session wired to a store (`SessionStore.attach`). */
export interface SessionPersistence {
  /** Makes everything appended so far durable; throws if any append was refused by the store. */
  flush(): Promise<void>;
  /** Stops buffering future appends. */
  dispose(): void;
}

export interface LoadOptions {
  /**
   * Read without taking the writer lock and without repairing: for inspection (show, verify,
   * requests). An open final turn is reported in `needsRepair`, never patched in memory.
   */
  readonly readOnly?: boolean;
  /** Options for the returned Session (clock, observer-error sink). */
  readonly session?: SessionOptions;
}

export interface LoadedSession {
  /** The session over the stored log, including any closers appended by repair. */
  readonly session: Session;
  /** Crash-repair closers appended (and made durable) by this load. */
  readonly repaired: readonly SessionEvent[];
  /** Bytes of a torn final line that were dropped (and, when writable, truncated away). */
  readonly droppedBytes: number;
  /** Read-only loads: true when the last turn is open and a writable load would repair it. */
  readonly needsRepair: boolean;
}

export interface SessionSummary {
  readonly id: string;
  readonly createdAt: number;
  /** When the log was last written (ms since epoch; the file's mtime for the JSONL store). */
  readonly updatedAt: number;
  readonly cwd?: string;
  readonly parentSession?: string;
  /** The session's first user prompt, when the store keeps one without reading the log (PostgreSQL). */
  readonly title?: string;
}

/**
 * A store of session logs. A store instance is the single writer of every session it has
 * created or loaded writable, until `release` or `close`; another writer (another instance or
 * process) is refused with `StoreError('locked')`.
 */
export interface SessionStore {
  /** Publishes a new session atomically (header + seed events); never overwrites. Takes the writer lock. */
  create(header: SessionMeta, seed?: readonly SessionEvent[]): Promise<void>;
  /**
   * Accepts a batch of events into the store's buffer before returning. Seqs must continue the
   * stored log exactly; a bad batch is rejected whole. Durable only after `flush`.
   */
  append(sessionId: string, events: readonly SessionEvent[]): void;
  /** Makes buffered events durable (all sessions when no id is given). A failed flush leaves nothing half-written and keeps the buffer for a retry. */
  flush(sessionId?: string): Promise<void>;
  /**
   * Wires a live session (created or loaded writable through this store) to it: every commit
   * enters the store's buffer in the same synchronous frame as the append; `flush()` makes it
   * durable and fails if the store ever refused an append. This is how the loop persists.
   */
  attach(session: Session): SessionPersistence;
  /** Loads and validates a stored log; a writable load takes the lock and repairs durably. */
  load(sessionId: string, options?: LoadOptions): Promise<LoadedSession>;
  /** Summaries of every stored session, oldest first. */
  list(): Promise<SessionSummary[]>;
  /** Flushes and gives up the writer lock on one session. If the flush fails, the session stays open (buffer kept) and the error is thrown. */
  release(sessionId: string): Promise<void>;
  /** Flushes everything and releases every lock. The store is unusable afterwards. */
  close(): Promise<void>;
}

export type StoreErrorCode =
  | "invalid-id"
  | "exists"
  | "not-found"
  | "locked"
  | "not-open"
  | "already-open"
  | "seq-gap"
  | "invalid-event"
  | "write-failed"
  | "corrupt"
  | "foreign"
  /** The log was written by a newer Keelson (a later header version, or an unknown event type or envelope key). */
  | "newer-version"
  /** The path is a directory, FIFO, device or socket: logs are read from regular files only. */
  | "not-a-file"
  /** The log is over the size limit (`MAX_LOG_BYTES`, 1 GiB by default). */
  | "too-large"
  /** A forked log's seed is a reference to another stored log that is missing, unreadable or changed (docs/decisions/0009). */
  | "seed-unavailable"
  /** PostgreSQL store: the stored log is not at the seq this writer expected (another writer appended); nothing was written. */
  | "conflict"
  /** PostgreSQL store: this store's lease on the session expired or was taken over; nothing was written. */
  | "lease-lost"
  /** PostgreSQL store: the database has no Keelson schema, or an older one (run `keelson db migrate`). */
  | "not-migrated"
  /** PostgreSQL store: the database could not be reached or a read failed (the message names host and database). */
  | "unavailable"
  /** PostgreSQL store: the database role lacks a privilege (SQLSTATE 42501) or its credentials were refused (class 28); retrying cannot help. */
  | "permission-denied"
  | "closed";

export class StoreError extends KeelsonError<StoreErrorCode> {
  /** The file concerned, when there is one. */
  readonly file: string | undefined;
  /** 1-based line in `file`, when the problem is on a line. */
  readonly line: number | undefined;
  constructor(code: StoreErrorCode, message: string, where: { file?: string; line?: number; cause?: unknown } = {}) {
    super(code, message, where);
    this.file = where.file;
    this.line = where.line;
  }
}
