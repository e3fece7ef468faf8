// Session: the append-only event log of one conversation and its live projections.
//
// `append` is synchronous and is the commit point: snapshot (lossless JSON, detached) →
// validate (payload, structure, surface op) → deep-freeze → push → notify observers (each
// observer's failure contained). A rejected append changes nothing. Observers may not append.
import { randomUUID } from "node:crypto";
import { adoptParsedJson, JsonError, previewJson, snapshotJson } from "../json/index.js";
import { isSurfaceEventType } from "./derive.js";
import { validateEnvelope, validateSessionHeader, validateSurfaceOp } from "./envelope.js";
import { SessionError } from "./errors.js";
import { isEventType, show, validateEventData } from "./event-data.js";
import { crashRepairClosers } from "./repair.js";
import { LogStructure } from "./structure.js";
import { Surface } from "./surface.js";
const defaultObserverError = (error, event) => {
    process.emitWarning(`session observer threw on ${event.type} (seq ${event.seq}): ${String(error)}`, "KeelsonObserverWarning");
};
/** A detached, validated copy of a session header; every failure is `invalid-header`. */
function headerCopy(header) {
    let copy;
    try {
        copy = snapshotJson(header, "header", FROZEN);
    }
    catch (e) {
        if (e instanceof JsonError)
            throw new SessionError("invalid-header", `session header is not lossless JSON: ${e.message}`, undefined, {
                cause: e,
            });
        throw e;
    }
    validateSessionHeader(copy);
    return copy;
}
const FROZEN = { freeze: true };
const snapshotFrozen = (value, path) => snapshotJson(value, path, FROZEN);
/** Freezes the fresh envelope around already-frozen data (and its provenance array). */
function freezeEnvelope(event) {
    if (event.sourceEventSeqs !== undefined)
        Object.freeze(event.sourceEventSeqs);
    return Object.freeze(event);
}
function surfaceOpCopy(op, seq) {
    try {
        return snapshotJson(op, "surfaceOp", FROZEN);
    }
    catch (e) {
        if (e instanceof JsonError)
            throw new SessionError("invalid-surface-op", `surfaceOp is not lossless JSON: ${e.message}`, seq, { cause: e });
        throw e;
    }
}
/** The commit already happened: an error sink that throws must not make `append` throw. */
function reportObserverError(sink, error, event) {
    try {
        sink(error, event);
    }
    catch (sinkError) {
        defaultObserverError(sinkError, event);
    }
}
export class Session {
    header;
    #clock;
    #onObserverError;
    #events = [];
    #eventsView = null;
    #structure = new LogStructure();
    #surface = new Surface();
    #observers = new Set();
    #notifying = false;
    #derived = { generation: 0, messages: [] };
    constructor(header, options) {
        this.header = Object.freeze(header); // a frozen snapshot copy (see headerCopy / create)
        this.#clock = options.clock ?? Date.now;
        this.#onObserverError = options.onObserverError ?? defaultObserverError;
    }
    /** A new, empty session. */
    static create(init = {}, options = {}) {
        const header = {
            version: 1,
            id: init.id ?? randomUUID(),
            createdAt: init.createdAt ?? (options.clock ?? Date.now)(),
            ...(init.cwd === undefined ? {} : { cwd: init.cwd }),
        };
        validateSessionHeader(header);
        return new Session(header, options);
    }
    /**
     * A session over an existing log (a loaded file, a fork's seed). Every event is validated as
     * if appended — envelope, payload, structure, surface op and replace provenance — and copied
     * and frozen. Throws `SessionError` naming the first bad event; an open final turn is allowed
     * (see `openTurnClosers` / `repair`).
     */
    static fromLog(header, events, options = {}) {
        const session = new Session(headerCopy(header), options);
        for (let i = 0; i < events.length; i++)
            session.#seed(events[i], i, snapshotFrozen);
        return session;
    }
    /**
     * `fromLog` for events fresh from `JSON.parse` (a store's load path): the session takes
     * ownership and freezes them in place instead of copying them. Only use it for values no one
     * else holds; the validation is otherwise identical.
     */
    static fromParsedLog(header, events, options = {}) {
        const session = new Session(headerCopy(header), options);
        for (let i = 0; i < events.length; i++)
            session.#seed(events[i], i, adoptParsedJson);
        return session;
    }
    get id() {
        return this.header.id;
    }
    get length() {
        return this.#events.length;
    }
    /** A frozen snapshot of the log; later appends do not change it. */
    get events() {
        this.#eventsView ??= Object.freeze(this.#events.slice());
        return this.#eventsView;
    }
    /** Bumped by every surface replace. */
    get surfaceGeneration() {
        return this.#surface.generation;
    }
    /** The seqs of the current surface nodes, in order. */
    surfaceSeqs() {
        return this.#surface.nodes.map((n) => n.seq);
    }
    /** The open turn's number, or null when no turn is open. */
    get openTurn() {
        return this.#structure.openTurn;
    }
    /** The open step's number, or null. */
    get openStep() {
        return this.#structure.openStep;
    }
    /** The highest turn number logged so far (0 for an empty log). */
    get lastTurn() {
        return this.#structure.lastTurn;
    }
    /**
     * Appends one event and returns it (deep-frozen). `surfaceOp` defaults to `'append'` for
     * surface-eligible types and must be omitted for the others. A replace gets its provenance
     * (`sourceEventSeqs`) from the surface. Throws `SessionError` and leaves the log unchanged if
     * the data is not lossless JSON, does not fit the type, or breaks the log's structure.
     */
    append(type, data, surfaceOp) {
        if (this.#notifying) {
            throw new SessionError("reentrant-append", `an observer tried to append ${String(type)} while observers were being notified`);
        }
        if (!isEventType(type))
            throw new SessionError("invalid-event", `unknown event type ${show(type)}`);
        const seq = this.#events.length;
        let copy;
        try {
            copy = snapshotJson(data, "data", FROZEN);
        }
        catch (e) {
            if (e instanceof JsonError)
                throw new SessionError("invalid-data", `${type} data is not lossless JSON: ${e.message}`, seq, { cause: e });
            throw e;
        }
        validateEventData(type, copy, seq);
        let op;
        if (isSurfaceEventType(type)) {
            op = surfaceOp === undefined || surfaceOp === "append" ? "append" : surfaceOpCopy(surfaceOp, seq);
            validateSurfaceOp(op, seq);
        }
        else if (surfaceOp !== undefined) {
            throw new SessionError("invalid-surface-op", `${type} is not surface-eligible and takes no surfaceOp`, seq);
        }
        const time = this.#clock();
        if (typeof time !== "number" || !Number.isFinite(time) || time < 0) {
            throw new SessionError("invalid-event", `the session clock returned ${String(time)}; event time must be epoch ms`, seq);
        }
        const draft = { type, seq, time, data: copy };
        const event = op === undefined ? draft : { ...draft, surfaceOp: op };
        const provenance = op === undefined ? undefined : this.#surface.plan(event, op);
        const final = provenance === undefined ? event : { ...event, sourceEventSeqs: provenance };
        this.#structure.check(final);
        this.#commit(freezeEnvelope(final), op);
        this.#notify(final);
        return final;
    }
    /** Appends a pending event (as produced by crash repair or a builder). */
    appendPending(pending) {
        return this.append(pending.type, pending.data, pending.surfaceOp);
    }
    /**
     * The events crash repair would append to close an open final turn: an error result for
     * every unanswered tool call, `step/end` if a step is open, `turn/end{interrupted}`.
     */
    openTurnClosers(options) {
        return crashRepairClosers(this.#structure, options);
    }
    /** Appends `openTurnClosers()` and returns the appended events (none if no turn is open). */
    repair() {
        return this.openTurnClosers().map((p) => this.appendPending(p));
    }
    /**
     * The derived history: one message per surface node, in order. Cached: a call derives only
     * the nodes appended since the last call and rebuilds after a replace. Returns a fresh array
     * over shared, deep-frozen messages. Never contains the session prefix (that lives in the
     * request header).
     */
    deriveMessages() {
        const nodes = this.#surface.nodes;
        const cache = this.#derived;
        if (cache.generation !== this.#surface.generation) {
            this.#derived = { generation: this.#surface.generation, messages: nodes.map((n) => n.message) };
        }
        else {
            for (let i = cache.messages.length; i < nodes.length; i++)
                cache.messages.push(nodes[i].message);
        }
        return this.#derived.messages.slice();
    }
    /** Registers an observer called after each append; returns its disposer. */
    observe(observer) {
        this.#observers.add(observer);
        return () => {
            this.#observers.delete(observer);
        };
    }
    /** `take` returns the event deep-frozen: a frozen copy, or the parsed value frozen in place. */
    #seed(raw, index, take) {
        let event;
        try {
            event = take(raw, `events[${index}]`);
        }
        catch (e) {
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
            const same = provenance === undefined
                ? logged === undefined
                : logged !== undefined && logged.length === provenance.length && logged.every((s, i) => s === provenance[i]);
            if (!same) {
                throw new SessionError("replace-provenance-mismatch", `${event.type} at seq ${index}: sourceEventSeqs ${previewJson(logged, 120)} must list the shadowed nodes ${previewJson(provenance, 120)}`, index);
            }
        }
        this.#structure.check(event);
        this.#commit(event, op);
    }
    #commit(event, op) {
        this.#structure.commit(event);
        if (op !== undefined)
            this.#surface.commit(event, op);
        this.#events.push(event);
        this.#eventsView = null;
    }
    #notify(event) {
        if (this.#observers.size === 0)
            return;
        this.#notifying = true;
        try {
            for (const observer of [...this.#observers]) {
                try {
                    observer(event, this);
                }
                catch (error) {
                    reportObserverError(this.#onObserverError, error, event);
                }
            }
        }
        finally {
            this.#notifying = false;
        }
    }
}
//# sourceMappingURL=session.js.map