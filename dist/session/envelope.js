// Validation of whole events and session headers arriving from outside (a stored log, a seed):
// the envelope's fields, the payload for its type, and the surface-op shape.
import { typeName } from "../messages/index.js";
import { isSurfaceEventType } from "./derive.js";
import { SessionError } from "./errors.js";
import { isEventType, show, validateEventData } from "./event-data.js";
const ENVELOPE_KEYS = new Set(["type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs"]);
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const isRecord = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
function envelopeError(index, detail) {
    return new SessionError("invalid-event", `event at index ${index}: ${detail}`, index);
}
/** Asserts `raw` is a well-formed event envelope with seq `expectedSeq` and a valid payload. */
export function validateEnvelope(raw, expectedSeq) {
    if (!isRecord(raw))
        throw envelopeError(expectedSeq, `expected an object, got ${typeName(raw)}`);
    for (const key in raw)
        if (!ENVELOPE_KEYS.has(key))
            throw envelopeError(expectedSeq, `unknown envelope key ${show(key)}`);
    if (raw.seq !== expectedSeq) {
        throw new SessionError("seq-mismatch", `event at index ${expectedSeq} has seq ${show(raw.seq)}; seq must equal index`, expectedSeq);
    }
    const type = raw.type;
    if (!isEventType(type))
        throw envelopeError(expectedSeq, `unknown event type ${show(type)}`);
    const time = raw.time;
    if (typeof time !== "number" || !Number.isFinite(time) || time < 0)
        throw envelopeError(expectedSeq, `time must be epoch ms, got ${show(time)}`);
    validateEventData(type, raw.data, expectedSeq);
    const op = raw.surfaceOp;
    if (isSurfaceEventType(type)) {
        if (op === undefined)
            throw envelopeError(expectedSeq, `${type} must carry a surfaceOp`);
        validateSurfaceOp(op, expectedSeq);
    }
    else if (op !== undefined) {
        throw envelopeError(expectedSeq, `${type} is not surface-eligible and may not carry a surfaceOp`);
    }
    const sources = raw.sourceEventSeqs;
    if (sources !== undefined) {
        if (!Array.isArray(sources) || !sources.every((s) => Number.isSafeInteger(s) && s >= 0))
            throw envelopeError(expectedSeq, "sourceEventSeqs must be an array of seqs");
        if (op === "append" || op === undefined)
            throw envelopeError(expectedSeq, "sourceEventSeqs is only allowed on a replace");
    }
}
/** Asserts `op` is `'append'` or `{ op: 'replace', start, end }` with integer positions. */
export function validateSurfaceOp(op, seq) {
    if (op === "append")
        return;
    const ok = isRecord(op) &&
        op.op === "replace" &&
        Number.isSafeInteger(op.start) &&
        Number.isSafeInteger(op.end) &&
        Object.keys(op).every((k) => k === "op" || k === "start" || k === "end");
    if (!ok) {
        throw new SessionError("invalid-surface-op", `surfaceOp must be 'append' or { op: 'replace', start, end } with integer positions, got ${show(op)}`, seq);
    }
}
/** Asserts a session header: version 1, a safe id, createdAt, optional cwd/parentSession/seedLength. */
export function validateSessionHeader(raw) {
    const fail = (detail) => {
        throw new SessionError("invalid-header", `session header: ${detail}`);
    };
    if (!isRecord(raw))
        fail(`expected an object, got ${typeName(raw)}`);
    const h = raw;
    if (h.version !== 1)
        fail(`unsupported version ${show(h.version)} (expected 1)`);
    if (typeof h.id !== "string" || !SESSION_ID.test(h.id))
        fail(`id ${show(h.id)} is not a safe session id`);
    if (typeof h.createdAt !== "number" || !Number.isFinite(h.createdAt))
        fail("createdAt must be epoch ms");
    if (h.cwd !== undefined && typeof h.cwd !== "string")
        fail("cwd must be a string");
    if (h.parentSession !== undefined && (typeof h.parentSession !== "string" || !SESSION_ID.test(h.parentSession))) {
        fail("parentSession must be a safe session id");
    }
    if (h.seedLength !== undefined && !(Number.isSafeInteger(h.seedLength) && h.seedLength >= 0)) {
        fail("seedLength must be a non-negative integer");
    }
}
/** True for ids `validateSessionHeader` accepts (letters, digits, `.`, `_`, `-`; ≤ 128). */
export function isSafeSessionId(id) {
    return SESSION_ID.test(id);
}
//# sourceMappingURL=envelope.js.map