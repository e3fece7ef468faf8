import type { Message } from "../messages/index.js";
import { type CloserOptions } from "./repair.js";
import type { EventDataMap, EventType, PendingEvent, SessionEvent, SessionHeader, SurfaceOp } from "./types.js";
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
}
export declare class Session {
    #private;
    readonly header: SessionHeader;
    private constructor();
    /** A new, empty session. */
    static create(init?: NewSessionInit, options?: SessionOptions): Session;
    /**
     * A session over an existing log (a loaded file, a fork's seed). Every event is validated as
     * if appended — envelope, payload, structure, surface op and replace provenance — and copied
     * and frozen. Throws `SessionError` naming the first bad event; an open final turn is allowed
     * (see `openTurnClosers` / `repair`).
     */
    static fromLog(header: unknown, events: readonly unknown[], options?: SessionOptions): Session;
    /**
     * `fromLog` for events fresh from `JSON.parse` (a store's load path): the session takes
     * ownership and freezes them in place instead of copying them. Only use it for values no one
     * else holds; the validation is otherwise identical.
     */
    static fromParsedLog(header: unknown, events: readonly unknown[], options?: SessionOptions): Session;
    get id(): string;
    get length(): number;
    /** A frozen snapshot of the log; later appends do not change it. */
    get events(): readonly SessionEvent[];
    /** Bumped by every surface replace. */
    get surfaceGeneration(): number;
    /** The seqs of the current surface nodes, in order. */
    surfaceSeqs(): number[];
    /** The open turn's number, or null when no turn is open. */
    get openTurn(): number | null;
    /** The open step's number, or null. */
    get openStep(): number | null;
    /** The highest turn number logged so far (0 for an empty log). */
    get lastTurn(): number;
    /**
     * Appends one event and returns it (deep-frozen). `surfaceOp` defaults to `'append'` for
     * surface-eligible types and must be omitted for the others. A replace gets its provenance
     * (`sourceEventSeqs`) from the surface. Throws `SessionError` and leaves the log unchanged if
     * the data is not lossless JSON, does not fit the type, or breaks the log's structure.
     */
    append<T extends EventType>(type: T, data: EventDataMap[T], surfaceOp?: SurfaceOp): SessionEvent<T>;
    /** Appends a pending event (as produced by crash repair or a builder). */
    appendPending(pending: PendingEvent): SessionEvent;
    /**
     * The events crash repair would append to close an open final turn: an error result for
     * every unanswered tool call, `step/end` if a step is open, `turn/end{interrupted}`.
     */
    openTurnClosers(options?: CloserOptions): PendingEvent[];
    /** Appends `openTurnClosers()` and returns the appended events (none if no turn is open). */
    repair(): SessionEvent[];
    /**
     * The derived history: one message per surface node, in order. Cached: a call derives only
     * the nodes appended since the last call and rebuilds after a replace. Returns a fresh array
     * over shared, deep-frozen messages. Never contains the session prefix (that lives in the
     * request header).
     */
    deriveMessages(): Message[];
    /** Registers an observer called after each append; returns its disposer. */
    observe(observer: SessionObserver): () => void;
}
