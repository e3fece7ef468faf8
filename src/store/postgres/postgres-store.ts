// PostgresSessionStore: the SessionStore contract over PostgreSQL (docs/decisions/0008), for
// many processes on many machines sharing one database.
//
// - Rows: a session row (header text, fork reference, log position, lease) and one row per
//   event holding its exact JSONL line (log-rows.ts); the schema is migrate()'s (schema.ts).
// - Appends are buffered per session and written per flush in one transaction guarded by the
//   log position and the lease (queries.ts APPEND, one statement): a writer behind the log gets `conflict`,
//   one whose lease expired or was taken over gets `lease-lost`; either way nothing is written
//   and the batch stays buffered.
// - Leases instead of lock files: create and a writable load take one (server clock only); a
//   live lease of another owner is `locked`, an expired one is taken over (epoch + 1, which
//   fences the old holder) and an open final turn is then repaired durably. Heartbeat:
//   lease-keeper.ts.
// - A fork whose seed is its stored parent's prefix stores no copy (known-logs.ts); a load reads
//   the chain of ancestors in one statement. Live tail: event-tail.ts.
import type { Session, SessionEvent, SessionMeta } from "../../session/index.js";
import { checkSessionId, SessionWriters, type WriterState } from "../session-writers.js";
import {
  type LoadedSession,
  type LoadOptions,
  type SessionPersistence,
  type SessionStore,
  type SessionSummary,
  StoreError,
} from "../types.js";
import { dbError, inTransaction, labelOf, type PgPool, type PostgresTarget, poolOf, secretOf } from "./connection.js";
import { writeGuardedBatch } from "./guarded-append.js";
import { EventTail, type SessionWatch, type WatchOptions } from "./event-tail.js";
import { KnownLogs, seedReference } from "./known-logs.js";
import { LeaseKeeper, takenError } from "./lease-keeper.js";
import { eventText, metaText, parseLines, storableText, titleOf } from "./log-rows.js";
import { CLEAR_LEASE, EVENT_RANGE, INSERT_EVENTS, INSERT_SESSION, LIST, TAKE_LEASE } from "./queries.js";
import { readStoredLog, type StoredHead } from "./stored-log-reader.js";
import { checkSchema } from "./schema.js";
import { type PostgresStoreOptions, resolveStoreOptions } from "./store-options.js";
import { type RetryPolicy, retryConnection } from "./transient.js";

export { DEFAULT_RECONNECT_MS, type PostgresStoreOptions } from "./store-options.js";

interface Writer extends WriterState {
  readonly id: string;
  epoch: number;
  /** The stored next_seq (everything below it is committed). */
  committed: number;
  /** The first user prompt among the appended events, for the session's title. */
  title: string | undefined;
  /** Set when a flush found the log moved or the lease gone: retrying cannot succeed. */
  hopeless: StoreError | undefined;
  /** Set by `keepLeaseOnRelease`: release drops the session but leaves the lease to the caller's own statement. */
  keepLease: boolean;
}

export class PostgresSessionStore implements SessionStore {
  /** The server as messages name it (no credentials). */
  readonly label: string;
  /** This store's lease owner id. */
  readonly owner: string;
  readonly leaseMs: number;
  readonly #target: PostgresTarget;
  readonly #secret: string | undefined;
  readonly #writers: SessionWriters<Writer>;
  readonly #known: KnownLogs;
  /** Leases taken by the caller's own statement, for the next writable load of each session (adoptLease). */
  readonly #adopted = new Map<string, { readonly epoch: number; readonly head: StoredHead }>();
  readonly #leases: LeaseKeeper;
  readonly #tail: EventTail;
  readonly #reconnect: RetryPolicy;
  #opening: Promise<PgPool> | undefined;
  #pool: { pool: PgPool; owned: boolean } | undefined;

  constructor(options: PostgresStoreOptions, ...rest: never[]) {
    // Options in a second object were once documented: ignoring them would silently keep the defaults.
    if (rest.length > 0)
      throw new TypeError("PostgresSessionStore takes one options object ({ url | pool, leaseMs?, owner?, … })");
    const resolved = resolveStoreOptions(options);
    this.#target = resolved.target;
    this.label = labelOf(this.#target);
    this.#secret = secretOf(this.#target);
    this.owner = resolved.owner;
    this.leaseMs = resolved.leaseMs;
    this.#writers = new SessionWriters<Writer>({
      encode: eventText,
      flushWriter: (writer) => this.#flushWriter(writer),
      appended: (writer, events) => {
        writer.title ??= titleOf(events);
      },
      whereOf: (id) => this.whereOf(id),
    });
    this.#known = new KnownLogs(resolved.knownSessions);
    this.#reconnect = resolved.reconnect;
    this.#leases = new LeaseKeeper(
      () => this.#pool?.pool,
      this.owner,
      this.leaseMs,
      () => [...this.#writers.values()].map((w) => [w.id, w.epoch] as const),
    );
    this.#tail = new EventTail(
      () => this.#connect(),
      (id, from, to) => this.#events(id, from, to),
    );
  }

  /** Where messages say session `id` is stored. */
  whereOf(id: string): string {
    return `${this.label} session ${id}`;
  }

  create(header: SessionMeta, seed: readonly SessionEvent[] = []): Promise<void> {
    return this.#writers.opening(header?.id, false, () => this.#create(header, seed));
  }

  async #create(header: SessionMeta, seed: readonly SessionEvent[]): Promise<void> {
    const created = this.#writers.created(header, seed);
    const id = header.id;
    const pool = await this.#connect("write-failed");
    // Encoded only when needed (a reference proven by identity encodes nothing: O(1) in the seed).
    let encoded: string[] | undefined;
    const lines = (): string[] => (encoded ??= seed.map(eventText));
    const seedFrom = await seedReference(pool, header, seed, created, this.#known, lines).catch((e: unknown) => {
      throw dbError(e, this.label, `creating session ${id}`, "write-failed", this.#secret);
    });
    let epoch: number;
    try {
      epoch = await inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ lease_epoch: string }>(INSERT_SESSION, [
          id,
          metaText(header),
          header.parentSession ?? null,
          seedFrom ?? null,
          header.seedLength ?? 0,
          header.createdAt,
          header.cwd === undefined ? null : storableText(header.cwd),
          titleOf(seed) ?? null,
          seed.length,
          this.owner,
          this.leaseMs,
        ]);
        if (rows[0] === undefined) throw await takenError(client, id, this.owner, this.whereOf(id));
        if (seedFrom === undefined && seed.length > 0)
          await client.query(INSERT_EVENTS, [id, seed.map((e) => e.seq), lines()]);
        return Number(rows[0].lease_epoch);
      });
    } catch (e) {
      throw dbError(e, this.label, `creating session ${id}`, "write-failed", this.#secret);
    }
    this.#addWriter(id, epoch, seed.length, created);
  }

  #addWriter(id: string, epoch: number, length: number, session: Session): Writer {
    const writer: Writer = {
      id,
      epoch,
      committed: length,
      nextSeq: length,
      buffer: [],
      title: undefined,
      flushing: Promise.resolve(),
      session,
      hopeless: undefined,
      keepLease: false,
    };
    this.#writers.set(id, writer);
    this.#known.set(id, { session, length });
    this.#leases.start();
    return writer;
  }

  append(sessionId: string, events: readonly SessionEvent[]): void {
    this.#writers.append(undefined, sessionId, events);
  }

  flush(sessionId?: string): Promise<void> {
    return this.#writers.flush(sessionId);
  }

  async #flushWriter(writer: Writer): Promise<void> {
    if (writer.buffer.length === 0) return;
    const pending = writer.buffer;
    writer.buffer = [];
    const from = writer.committed;
    const lease = { owner: this.owner, epoch: writer.epoch, leaseMs: this.leaseMs };
    // One statement, atomic by itself: no transaction round trips around it. A lost connection is
    // retried on a fresh one (transient.ts): the guard either writes the batch, or finds it
    // committed by an attempt whose answer was lost (its own rows), or refuses (lease, position).
    const attempt = await retryConnection(this.#reconnect, async () =>
      writeGuardedBatch(
        await this.#connect("write-failed"),
        writer.id,
        lease,
        { from, lines: pending, title: writer.title },
        this.whereOf(writer.id),
      ),
    );
    if (!attempt.ok) {
      const e = attempt.error;
      writer.buffer = [...pending, ...writer.buffer]; // kept for a retry, ahead of anything appended meanwhile
      if (e instanceof StoreError && (e.code === "conflict" || e.code === "lease-lost")) writer.hopeless = e;
      const retried = attempt.retries === 0 ? "" : ` (after ${attempt.retries} reconnect(s))`;
      throw dbError(
        e,
        this.label,
        `session ${writer.id}: flushing ${pending.length} event(s)${retried}`,
        "write-failed",
        this.#secret,
      );
    }
    const written = attempt.value;
    writer.committed = from + written;
    if (writer.session !== undefined) this.#known.set(writer.id, { session: writer.session, length: writer.committed });
    if (written < pending.length) {
      // The first `written` were an earlier attempt's lost commit: write the rest now.
      writer.buffer = [...pending.slice(written), ...writer.buffer];
      await this.#flushWriter(writer);
    }
  }

  attach(session: Session): SessionPersistence {
    return this.#writers.attach(session);
  }

  load(sessionId: string, options: LoadOptions = {}): Promise<LoadedSession> {
    return this.#writers.opening(sessionId, options?.readOnly === true, () => this.#load(sessionId, options));
  }

  async #load(sessionId: string, options: LoadOptions): Promise<LoadedSession> {
    this.#writers.ensureOpen();
    const id = checkSessionId(sessionId);
    await this.#writers.beforeLoad(id, options.readOnly === true);
    const pool = await this.#connect(options.readOnly ? "unavailable" : "write-failed");
    if (options.readOnly) {
      const session = await this.#read(pool, id, options);
      this.#known.set(id, { session, length: session.length });
      return { session, repaired: [], droppedBytes: 0, needsRepair: session.openTurn !== null };
    }
    let taken: (StoredHead & { lease_epoch: string }) | undefined;
    const adopted = this.#adopted.get(id);
    this.#adopted.delete(id);
    if (adopted !== undefined) taken = { ...adopted.head, lease_epoch: String(adopted.epoch) };
    else
      try {
        const { rows } = await pool.query<StoredHead & { lease_epoch: string }>(TAKE_LEASE, [
          id,
          this.owner,
          this.leaseMs,
        ]);
        taken = rows[0];
        if (taken === undefined) throw await takenError(pool, id, this.owner, this.whereOf(id), false);
      } catch (e) {
        throw dbError(e, this.label, `taking the lease of session ${id}`, "write-failed", this.#secret);
      }
    const epoch = Number(taken.lease_epoch);
    let session: Session;
    try {
      session = await this.#read(pool, id, options, taken);
    } catch (e) {
      await pool.query(CLEAR_LEASE, [id, this.owner, epoch]).catch(() => undefined);
      throw e;
    }
    const writer = this.#addWriter(id, epoch, session.length, session);
    // Crash repair at take-over, durably and once: the closers are written under this lease's epoch.
    const repaired = session.repair();
    if (repaired.length > 0) {
      this.#writers.append(session, id, repaired);
      try {
        await this.flush(id);
      } catch (e) {
        this.#writers.delete(id);
        await pool.query(CLEAR_LEASE, [id, this.owner, writer.epoch]).catch(() => undefined);
        throw e;
      }
    }
    return { session, repaired, droppedBytes: 0, needsRepair: false };
  }

  /**
   * The next writable `load` of `sessionId` uses the lease `epoch` that the caller's own
   * statement took for this store's owner, with the session's `head` as that statement returned
   * it (SESSION_HEAD's columns), instead of taking the lease itself: one round trip less (the
   * fleet's claim takes the lease, #20 F21). Nothing is trusted more than before: every flush
   * checks owner and epoch, so a wrong epoch fails `lease-lost`. `undefined` withdraws it.
   */
  adoptLease(sessionId: string, lease: { readonly epoch: number; readonly head: StoredHead } | undefined): void {
    if (lease === undefined) this.#adopted.delete(sessionId);
    else this.#adopted.set(sessionId, lease);
  }

  /**
   * The next `release` of `sessionId` flushes and lets the session go as always but leaves its
   * lease in place: the caller gives it up in a statement of its own (the fleet's finish records
   * the turn's end and clears the lease in one commit, #20 F21) — after the release, so a new
   * writable load of the session in this store, which a free lease makes possible at once, never
   * finds the old writer. Returns the epoch the lease is held at (for that statement's guard), or
   * undefined when this store does not hold the session. A release that finds the lease lost or
   * the log moved clears it as always. Until the caller's statement runs, do not reopen the
   * session in this store: a writable load re-takes the kept lease at the same epoch, which that
   * statement then clears (store README).
   */
  keepLeaseOnRelease(sessionId: string): number | undefined {
    const writer = this.#writers.get(sessionId);
    if (writer === undefined) return undefined;
    writer.keepLease = true;
    return writer.epoch;
  }

  /**
   * How many of session `sessionId`'s committed events this store holds (its next load of the
   * session reads only the rows after them), or undefined when it holds none. A fleet worker
   * prefers the sessions whose stored log is still that long (decision 0035).
   */
  knownLength(sessionId: string): number | undefined {
    return this.#known.peek(sessionId)?.length;
  }

  /** Session `id`'s log, validated (stored-log-reader.ts: what this store knows is not read again). */
  async #read(pool: PgPool, id: string, options: LoadOptions, head?: StoredHead): Promise<Session> {
    try {
      return await readStoredLog(
        pool,
        id,
        this.whereOf(id),
        (sid) => this.#known.get(sid),
        options.session ?? {},
        head,
      );
    } catch (e) {
      throw dbError(e, this.label, `loading session ${id}`, "unavailable", this.#secret);
    }
  }

  /** Committed events of session `id` with seq in [from, to), parsed (for the live tail). */
  async #events(id: string, from: number, to: number): Promise<SessionEvent[]> {
    const pool = await this.#connect();
    const { rows } = await pool.query<{ seq: string; line: string }>(EVENT_RANGE, [id, from, to]);
    return parseLines(
      rows.map((r) => r.line),
      from,
      this.whereOf(id),
    ) as SessionEvent[];
  }

  /**
   * The committed events of session `sessionId` with seq in [from, to) (default: to the end),
   * parsed, read without loading the log (a follower's catch-up; the fleet's followers).
   */
  async readEvents(sessionId: string, from: number, to = Number.MAX_SAFE_INTEGER): Promise<SessionEvent[]> {
    this.#writers.ensureOpen();
    const id = checkSessionId(sessionId);
    try {
      return await this.#events(id, from, to);
    } catch (e) {
      throw dbError(e, this.label, `reading events of session ${id}`, "unavailable", this.#secret);
    }
  }

  /**
   * Follows session `id` as it grows, in this process or any other: `onEvents` gets every event
   * committed after the watch started (or from `options.fromSeq`), in seq order, exactly once.
   * One LISTEN connection serves all of a store's watches; a catch-up poll every 2 s (one
   * statement for all of them) delivers what a lost notification held back, and says so
   * (`options.onUnannounced`) when the notification still has not come one poll later. A row
   * that does not parse: the events before it are delivered, then `onError` gets the `corrupt` error.
   */
  async watch(
    sessionId: string,
    onEvents: (events: readonly SessionEvent[]) => void,
    options: WatchOptions = {},
  ): Promise<SessionWatch> {
    this.#writers.ensureOpen();
    const id = checkSessionId(sessionId);
    try {
      return await this.#tail.watch(id, onEvents, options);
    } catch (e) {
      throw dbError(e, this.label, `watching session ${id}`, "unavailable", this.#secret);
    }
  }

  async list(): Promise<SessionSummary[]> {
    this.#writers.ensureOpen();
    const pool = await this.#connect();
    let rows: {
      id: string;
      created_at: number;
      updated_at: number;
      cwd: string | null;
      parent_id: string | null;
      title: string | null;
    }[];
    try {
      ({ rows } = await pool.query(LIST));
    } catch (e) {
      throw dbError(e, this.label, "listing sessions", "unavailable", this.#secret);
    }
    return rows.map((r) => ({
      id: r.id,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      ...(r.cwd === null ? {} : { cwd: r.cwd }),
      ...(r.parent_id === null ? {} : { parentSession: r.parent_id }),
      ...(r.title === null ? {} : { title: r.title }),
    }));
  }

  release(sessionId: string): Promise<void> {
    return this.#writers.releasing(sessionId, () => this.#release(sessionId));
  }

  async #release(sessionId: string): Promise<void> {
    const writer = this.#writers.get(sessionId);
    if (writer === undefined) return;
    try {
      await this.flush(sessionId);
    } catch (e) {
      // A log that moved or a lease that is gone cannot be written by retrying: give the session up.
      if (writer.hopeless === undefined) throw e; // else the writer (and its buffer) stays for a retry
      this.#writers.delete(sessionId);
      await this.#clearLease(writer);
      throw e;
    }
    this.#writers.delete(sessionId);
    if (!writer.keepLease) await this.#clearLease(writer);
  }

  async #clearLease(writer: Writer): Promise<void> {
    const pool = this.#pool?.pool;
    if (pool === undefined) return;
    // Idempotent: retried on a lost connection like a flush.
    const attempt = await retryConnection(this.#reconnect, () =>
      pool.query(CLEAR_LEASE, [writer.id, this.owner, writer.epoch]),
    );
    if (!attempt.ok)
      throw dbError(
        attempt.error,
        this.label,
        `releasing the lease of session ${writer.id}`,
        "write-failed",
        this.#secret,
      );
  }

  close(): Promise<void> {
    return this.#writers.close(
      (id) => this.release(id),
      async () => {
        this.#leases.stop();
        await this.#tail.close();
        const pool = this.#pool;
        this.#pool = undefined;
        if (pool?.owned === true) await pool.pool.end().catch(() => undefined);
      },
    );
  }

  /** Renews this store's leases now (the heartbeat does this every leaseMs / 3); returns the ids renewed. */
  renewLeases(): Promise<string[]> {
    return this.#leases.renew();
  }

  /**
   * The pool, opened (and the schema checked) on first use. A failure to reach the server is
   * `code` (`write-failed` for the writes, `unavailable` for reads); schema refusals keep theirs.
   */
  async #connect(code: "write-failed" | "unavailable" = "unavailable"): Promise<PgPool> {
    try {
      return await this.#openPool();
    } catch (e) {
      if (e instanceof StoreError && e.code === "unavailable" && code !== "unavailable")
        throw new StoreError(code, e.message, { cause: e.cause });
      throw e;
    }
  }

  #openPool(): Promise<PgPool> {
    this.#opening ??= (async () => {
      const opened = await poolOf(this.#target);
      this.#pool = opened;
      try {
        await checkSchema(opened.pool, this.label);
      } catch (e) {
        throw dbError(e, this.label, "connecting", "unavailable", this.#secret);
      }
      return opened.pool;
    })();
    const ready = this.#opening;
    // A failed connect is retried by the next call (the server may come back).
    ready.catch(async () => {
      if (this.#opening !== ready) return;
      this.#opening = undefined;
      const opened = this.#pool;
      this.#pool = undefined;
      if (opened?.owned === true) await opened.pool.end().catch(() => undefined);
    });
    return ready;
  }
}
