// Session: the append-only event log of one conversation and its live projections.
//
// `append` is synchronous and is the commit point: snapshot (lossless JSON, detached) →
// validate (payload, structure, surface op) → deep-freeze → push → notify observers (each
// observer's failure contained). A rejected append changes nothing. Observers may not append.
//
// Every event a Session holds was validated and deep-frozen on the way in and is never mutated,
// so sessions share them: `fromSession` (a fork, a second session over the same log) takes a
// prefix of another session's events without copying, re-validating or re-freezing, and
// `fromLog` does the same for an `events` view a Session handed out (see docs/decisions/0006).
import { randomUUID } from "node:crypto";
import { adoptParsedJson, JsonError, previewJson, snapshotJson } from "../json/index.js";
import type { Message } from "../messages/index.js";
import {
  type PendingApproval,
  type PendingInput,
  pendingInputsOf,
  pendingOf,
  type WaitingCall,
  waitingOf,
} from "./approvals.js";
import { ChunkedEvents } from "./chunked-events.js";
import { isSurfaceEventType } from "./derive.js";
import { DerivedHistory } from "./derived-history.js";
import { validateEnvelope, validateSessionMeta, validateSurfaceOp } from "./envelope.js";
import { SessionError } from "./errors.js";
import { isEventType, show, validateEventData } from "./event-data.js";
import { type CloserOptions, crashRepairClosers } from "./repair.js";
import { LogStructure } from "./structure.js";
import { Surface } from "./surface.js";
import type {
  AnySessionEvent,
  EventDataMap,
  EventType,
  PendingEvent,
  SessionEvent,
  SessionMeta,
  SpawnedBy,
  SurfaceOp,
} from "./types.js";

export type SessionObserver = (event: SessionEvent, session: Session) => void;

export interface SessionOptions {
  /** Epoch-ms clock for event `time`; defaults to `Date.now`. Tests pass a fixed clock. */
  readonly clock?: () => number;
  /** Where a throwing observer's error goes; defaults to a process warning. */
  readonly onObserverError?: (error: unknown, event: SessionEvent) => void;
}

export interface NewSessionInit {
  readonly id?: string;
  readonly createdAt?: number;
  readonly cwd?: string;
  /** A subagent's session: the parent session and tool call that start it. */
  readonly spawnedBy?: SpawnedBy;
}

/** A session's log and the state derived from it: what a session over a prefix shares. */
interface LogCore {
  readonly events: ChunkedEvents;
  readonly structure: LogStructure;
  readonly surface: Surface;
}

/**
 * The frozen `events` views Sessions handed out, each to its session's log core. Such a view
 * (and only such a view: a copy, a slice or parsed JSON is not one) is a trusted seed, because
 * it can only hold that log's validated, deep-frozen events, in order, from seq 0. One entry per
 * view built (never per event), so trust costs nothing on the hot path; the entry holds the
 * core, not the Session, so a kept view does not keep a session's observers alive.
 */
const VIEW_CORE = new WeakMap<readonly SessionEvent[], LogCore>();

const defaultObserverError = (error: unknown, event: SessionEvent): void => {
  process.emitWarning(
    `session observer threw on ${event.type} (seq ${event.seq}): ${String(error)}`,
    "KeelsonObserverWarning",
  );
};

/** A detached, validated copy of a session's meta; every failure is `invalid-header`. */
function metaCopy(header: unknown): SessionMeta {
  let copy: unknown;
  try {
    copy = snapshotJson(header, "header", FROZEN);
  } catch (e) {
    if (e instanceof JsonError)
      throw new SessionError("invalid-header", `session header is not lossless JSON: ${e.message}`, undefined, {
        cause: e,
      });
    throw e;
  }
  validateSessionMeta(copy);
  return copy;
}

/**
 * How a parsed event is taken: adopted (frozen in place) when fresh from `JSON.parse`, copied
 * when already frozen — an object some Session may hold. So an event object is only ever in
 * the logs of one lineage (a log and the sessions sharing its prefix), and "the log ending at
 * this event object" names one log: what lets layers above memoise per-log folds by it.
 */
const takeParsed = (raw: unknown): ((value: unknown, path: string) => unknown) =>
  typeof raw === "object" && raw !== null && Object.isFrozen(raw) ? snapshotFrozen : adoptParsedJson;

// Frozen as copied, but not marked for `isDeepFrozen`: nothing asks it about event data, and a
// WeakSet add per event was a tenth of a fork's cost (docs/decisions/0006).
const FROZEN = { freeze: true, mark: false } as const;
const snapshotFrozen = (value: unknown, path: string): unknown => snapshotJson(value, path, FROZEN);

/** Freezes the fresh envelope around already-frozen data (and its provenance array). */
function freezeEnvelope<T extends SessionEvent>(event: T): T {
  if (event.sourceEventSeqs !== undefined) Object.freeze(event.sourceEventSeqs);
  return Object.freeze(event);
}

function surfaceOpCopy(op: SurfaceOp, seq: number): SurfaceOp {
  try {
    return snapshotJson(op, "surfaceOp", FROZEN) as unknown as SurfaceOp;
  } catch (e) {
    if (e instanceof JsonError)
      throw new SessionError("invalid-surface-op", `surfaceOp is not lossless JSON: ${e.message}`, seq, { cause: e });
    throw e;
  }
}

/** The commit already happened: an error sink that throws must not make `append` throw. */
function reportObserverError(
  sink: (error: unknown, event: SessionEvent) => void,
  error: unknown,
  event: SessionEvent,
): void {
  try {
    sink(error, event);
  } catch (sinkError) {
    defaultObserverError(sinkError, event);
  }
}

export class Session {
  readonly header: SessionMeta;
  readonly #clock: () => number;
  readonly #onObserverError: (error: unknown, event: SessionEvent) => void;
  readonly #events: ChunkedEvents;
  #eventsView: readonly SessionEvent[] | null;
  readonly #structure: LogStructure;
  readonly #surface: Surface;
  readonly #observers = new Set<SessionObserver>();
  /** The observers as an array, rebuilt only when one is added or removed (read on every append). */
  #observerList: readonly SessionObserver[] = [];
  #notifying = false;
  readonly #history: DerivedHistory;

  private constructor(
    header: SessionMeta,
    options: SessionOptions,
    shared?: LogCore & { readonly view: readonly SessionEvent[] | null },
  ) {
    this.header = Object.freeze(header); // a frozen snapshot copy (see metaCopy / create)
    this.#clock = options.clock ?? Date.now;
    this.#onObserverError = options.onObserverError ?? defaultObserverError;
    this.#events = shared?.events ?? new ChunkedEvents();
    this.#eventsView = shared?.view ?? null;
    this.#structure = shared?.structure ?? new LogStructure();
    this.#surface = shared?.surface ?? new Surface();
    this.#history = new DerivedHistory(this.#surface);
  }

  /** A new, empty session. */
  static create(init: NewSessionInit = {}, options: SessionOptions = {}): Session {
    const header: SessionMeta = {
      version: 1,
      id: init.id ?? randomUUID(),
      createdAt: init.createdAt ?? (options.clock ?? Date.now)(),
      ...(init.cwd === undefined ? {} : { cwd: init.cwd }),
      ...(init.spawnedBy === undefined
        ? {}
        : { spawnedBy: { session: init.spawnedBy.session, callId: init.spawnedBy.callId } }),
    };
    validateSessionMeta(header);
    return new Session(header, options);
  }

  /**
   * A session over an existing log (a loaded file, a fork's seed). Every event is validated as
   * if appended — envelope, payload, structure, surface op and replace provenance — and copied
   * and frozen. Throws `SessionError` naming the first bad event; an open final turn is allowed
   * (see `openTurnClosers` / `repair`). When `events` is itself an `events` view of a Session
   * (that exact frozen array), it is `fromSession(owner, header, events.length)`: the events were
   * validated and frozen by that session and are shared, not copied (no observable difference).
   */
  static fromLog(header: unknown, events: readonly unknown[], options: SessionOptions = {}): Session {
    const view = events as readonly SessionEvent[];
    const core = VIEW_CORE.get(view);
    if (core !== undefined) return Session.#over(core, header, view.length, options, view);
    const session = new Session(metaCopy(header), options);
    for (let i = 0; i < events.length; i++) session.#seed(events[i], i, snapshotFrozen);
    return session;
  }

  /**
   * `fromLog` for events fresh from `JSON.parse` (a store's load path): the session takes
   * ownership and freezes them in place instead of copying them. Only use it for values no one
   * else holds; the validation is otherwise identical.
   */
  static fromParsedLog(header: unknown, events: readonly unknown[], options: SessionOptions = {}): Session {
    const session = new Session(metaCopy(header), options);
    for (let i = 0; i < events.length; i++) session.#seed(events[i], i, takeParsed(events[i]));
    return session;
  }

  /**
   * A session over the first `length` events of `parent` (default: all of them) under `header`
   * (validated as in `fromLog`), sharing the events: `events[i] === parent.events[i]`. They were
   * validated and deep-frozen when `parent` took them, so they are not copied, validated, frozen
   * or marked again. Storage is shared too (full event chunks, the call-id index, the surface
   * nodes), and the structure and surface state at `length` is derived from the parent's
   * without checks (see `LogStructure.prefixOf`, `Surface.prefixOf`): at the parent's end or at
   * a `turn/end`, the cost does not grow with the log but for a pointer copy of the surface.
   * Later appends to either session never reach the other. Throws
   * `SessionError('seed-out-of-range')` for a `length` outside `0..parent.length`. A fork
   * (`forkSession`) is this at a `turn/end`.
   */
  static fromSession(parent: Session, header: unknown, length?: number, options: SessionOptions = {}): Session {
    if (typeof parent !== "object" || parent === null || !(#events in parent))
      throw new SessionError("invalid-event", `fromSession needs a Session to share events with, got ${show(parent)}`);
    const total = parent.#events.length;
    const end = length ?? total;
    if (!Number.isSafeInteger(end) || end < 0 || end > total) {
      throw new SessionError(
        "seed-out-of-range",
        `a shared seed of ${show(end)} events is outside the parent's log (0..${total})`,
      );
    }
    // When the seed is the whole log, the parent's view is exactly the child's first view: share
    // it (built once per parent state, where a new agent would otherwise build one per child).
    return Session.#over(parent.#core(), header, end, options, end === total ? parent.events : null);
  }

  /**
   * A session over the first `length` events of `parent` (shared, as in `fromSession`) followed
   * by `events`, fresh from `JSON.parse`, validated as in `fromParsedLog` (their seqs continue at
   * `length`). How a store loads a log whose seed is a reference to another stored log: the
   * seed is not copied or checked again, the log's own lines are. `SessionError` names the first
   * bad event by seq.
   */
  static fromSessionAndParsed(
    parent: Session,
    header: unknown,
    length: number,
    events: readonly unknown[],
    options: SessionOptions = {},
  ): Session {
    const session = Session.fromSession(parent, header, length, options);
    for (let i = 0; i < events.length; i++) session.#seed(events[i], length + i, takeParsed(events[i]));
    return session;
  }

  /** A session over `core`'s first `length` events; `view`, when given, is exactly those events. */
  static #over(
    core: LogCore,
    header: unknown,
    length: number,
    options: SessionOptions,
    view: readonly SessionEvent[] | null,
  ): Session {
    return new Session(metaCopy(header), options, {
      events: core.events.prefix(length),
      structure: LogStructure.prefixOf(core.structure, core.events, length),
      surface: Surface.prefixOf(core.surface, core.events, length),
      view,
    });
  }

  #core(): LogCore {
    return { events: this.#events, structure: this.#structure, surface: this.#surface };
  }

  get id(): string {
    return this.header.id;
  }
  get length(): number {
    return this.#events.length;
  }
  /** The event with seq `seq` (undefined outside `0..length-1`), without building the `events` view. */
  eventAt(seq: number): SessionEvent | undefined {
    return Number.isInteger(seq) && seq >= 0 && seq < this.#events.length ? this.#events.at(seq) : undefined;
  }
  /**
   * A frozen snapshot of the log; later appends do not change it. Built on the first read after
   * an append (O(length) pointer copy), then cached: the loop's per-step path never reads it.
   */
  get events(): readonly SessionEvent[] {
    if (this.#eventsView === null) {
      const view = Object.freeze(this.#events.toArray());
      VIEW_CORE.set(view, this.#core());
      this.#eventsView = view;
    }
    return this.#eventsView;
  }
  /** Bumped by every surface replace. */
  get surfaceGeneration(): number {
    return this.#surface.generation;
  }
  /** The seqs of the current surface nodes, in order. */
  surfaceSeqs(): number[] {
    return this.#surface.nodes.map((n) => n.seq);
  }
  /** The open turn's number, or null when no turn is open. */
  get openTurn(): number | null {
    return this.#structure.openTurn;
  }
  /** The open step's number, or null. */
  get openStep(): number | null {
    return this.#structure.openStep;
  }
  /** The highest turn number logged so far (0 for an empty log). */
  get lastTurn(): number {
    return this.#structure.lastTurn;
  }
  /** True when some `approval/request` has no decision yet (the session awaits a person). */
  get awaitingApproval(): boolean {
    return this.#structure.awaitingApproval;
  }
  /** True when some `input/request` has no response yet (the session awaits a person's answer). */
  get awaitingInput(): boolean {
    return this.#structure.awaitingInput;
  }
  /** The unanswered input requests (questions to a person), in model order. */
  pendingInputs(): PendingInput[] {
    return pendingInputsOf(this.#structure, (seq) => this.#events.at(seq)!.time);
  }
  /** The undecided approval requests, in model order (see approvals.ts). */
  pendingApprovals(): PendingApproval[] {
    return pendingOf(this.#structure, (seq) => this.#events.at(seq)!.time);
  }
  /** The tool calls that wait — held past their step, or unlogged in the open one — in model order, each with its approval. */
  waitingCalls(): WaitingCall[] {
    return waitingOf(this.#structure);
  }

  /**
   * Appends one event and returns it (deep-frozen). `surfaceOp` defaults to `'append'` for
   * surface-eligible types and must be omitted for the others. A replace gets its provenance
   * (`sourceEventSeqs`) from the surface. Throws `SessionError` and leaves the log unchanged if
   * the data is not lossless JSON, does not fit the type, or breaks the log's structure.
   */
  append<T extends EventType>(type: T, data: EventDataMap[T], surfaceOp?: SurfaceOp): SessionEvent<T> {
    if (this.#notifying) {
      throw new SessionError(
        "reentrant-append",
        `an observer tried to append ${String(type)} while observers were being notified`,
      );
    }
    if (!isEventType(type)) throw new SessionError("invalid-event", `unknown event type ${show(type)}`);
    const seq = this.#events.length;
    let copy: unknown;
    try {
      copy = snapshotJson(data, "data", FROZEN);
    } catch (e) {
      if (e instanceof JsonError)
        throw new SessionError("invalid-data", `${type} data is not lossless JSON: ${e.message}`, seq, { cause: e });
      throw e;
    }
    validateEventData(type, copy, seq);
    let op: SurfaceOp | undefined;
    if (isSurfaceEventType(type)) {
      op = surfaceOp === undefined || surfaceOp === "append" ? "append" : surfaceOpCopy(surfaceOp, seq);
      validateSurfaceOp(op, seq);
    } else if (surfaceOp !== undefined) {
      throw new SessionError("invalid-surface-op", `${type} is not surface-eligible and takes no surfaceOp`, seq);
    }
    const time = this.#clock();
    if (typeof time !== "number" || !Number.isFinite(time) || time < 0) {
      throw new SessionError(
        "invalid-event",
        `the session clock returned ${String(time)}; event time must be epoch ms`,
        seq,
      );
    }
    // Each shape is one object literal, never a spread: V8 gives spread copies a fresh hidden
    // class per object, which makes every later read of an event megamorphic (and costs memory).
    const payload = copy as EventDataMap[T];
    let final: SessionEvent<T>;
    if (op === undefined) final = { type, seq, time, data: payload };
    else {
      const event: SessionEvent<T> = { type, seq, time, data: payload, surfaceOp: op };
      const provenance = this.#surface.plan(event, op);
      final =
        provenance === undefined
          ? event
          : { type, seq, time, data: payload, surfaceOp: op, sourceEventSeqs: provenance };
    }
    this.#structure.check(final as AnySessionEvent);
    this.#commit(freezeEnvelope(final), op);
    this.#notify(final);
    return final;
  }

  /** Appends a pending event (as produced by crash repair or a builder). */
  appendPending(pending: PendingEvent): SessionEvent {
    return this.append(pending.type, pending.data as never, pending.surfaceOp);
  }

  /**
   * The events crash repair would append to close an open final turn: an error result for
   * every unanswered tool call, `step/end` if a step is open, `turn/end{interrupted}`.
   */
  openTurnClosers(options?: CloserOptions): PendingEvent[] {
    return crashRepairClosers(this.#structure, options);
  }

  /** Appends `openTurnClosers()` and returns the appended events (none if no turn is open). */
  repair(): SessionEvent[] {
    return this.openTurnClosers().map((p) => this.appendPending(p));
  }

  /**
   * The derived history: one message per surface node, in order. Cached: a call derives only
   * the nodes appended since the last call and rebuilds after a replace. Returns a fresh array
   * over shared, deep-frozen messages. Never contains the session prefix (that lives in the
   * request header).
   */
  deriveMessages(): Message[] {
    return this.#history.copy();
  }

  /** The derived history as it is now, copied on first read (derived-history.ts): what the loop's request holds. */
  historySnapshot(): () => readonly Message[] {
    return this.#history.snapshot();
  }

  /** Registers an observer called after each append; returns its disposer. */
  observe(observer: SessionObserver): () => void {
    this.#observers.add(observer);
    this.#observerList = [...this.#observers];
    return () => {
      if (this.#observers.delete(observer)) this.#observerList = [...this.#observers];
    };
  }

  /** `take` returns the event deep-frozen: a frozen copy, or the parsed value frozen in place. */
  #seed(raw: unknown, index: number, take: (value: unknown, path: string) => unknown): void {
    let event: SessionEvent;
    try {
      event = take(raw, `events[${index}]`) as SessionEvent;
    } catch (e) {
      if (e instanceof JsonError)
        throw new SessionError("invalid-data", `event at index ${index} is not lossless JSON: ${e.message}`, index, {
          cause: e,
        });
      throw e;
    }
    validateEnvelope(event, index);
    const op = event.surfaceOp;
    if (op !== undefined) {
      const provenance = this.#surface.plan(event, op);
      const logged = event.sourceEventSeqs;
      const same =
        provenance === undefined
          ? logged === undefined
          : logged !== undefined && logged.length === provenance.length && logged.every((s, i) => s === provenance[i]);
      if (!same) {
        throw new SessionError(
          "replace-provenance-mismatch",
          `${event.type} at seq ${index}: sourceEventSeqs ${previewJson(logged, 120)} must list the shadowed nodes ${previewJson(provenance, 120)}`,
          index,
        );
      }
    }
    this.#structure.check(event as AnySessionEvent);
    this.#commit(event, op);
  }

  #commit(event: SessionEvent, op: SurfaceOp | undefined): void {
    this.#structure.commit(event as AnySessionEvent);
    if (op !== undefined) this.#surface.commit(event, op);
    this.#events.push(event);
    this.#eventsView = null;
  }

  #notify(event: SessionEvent): void {
    if (this.#observers.size === 0) return;
    this.#notifying = true;
    try {
      // The list in force when the event was committed: a removal or addition meanwhile makes a new list.
      for (const observer of this.#observerList) {
        try {
          observer(event, this);
        } catch (error) {
          reportObserverError(this.#onObserverError, error, event);
        }
      }
    } finally {
      this.#notifying = false;
    }
  }
}
