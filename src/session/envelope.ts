// Validation of whole events and session headers arriving from outside (a stored log, a seed):
// the envelope's fields, the payload for its type, and the surface-op shape.
import { typeName } from "../messages/index.js";
import { isSurfaceEventType } from "./derive.js";
import { SessionError } from "./errors.js";
import { isEventType, show, validateEventData } from "./event-data.js";
import type { SessionEvent, SessionMeta, SurfaceOp } from "./types.js";

const ENVELOPE_KEYS = new Set(["type", "seq", "time", "data", "surfaceOp", "sourceEventSeqs"]);

/** The session-log format version this Keelson writes and reads (`SessionMeta.version`). */
export const LOG_VERSION = 1;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function envelopeError(index: number, detail: string): SessionError {
  return new SessionError("invalid-event", `event at index ${index}: ${detail}`, index);
}

/** Asserts `raw` is a well-formed event envelope with seq `expectedSeq` and a valid payload. */
export function validateEnvelope(raw: unknown, expectedSeq: number): asserts raw is SessionEvent {
  if (!isRecord(raw)) throw envelopeError(expectedSeq, `expected an object, got ${typeName(raw)}`);
  for (const key in raw)
    if (!ENVELOPE_KEYS.has(key)) throw envelopeError(expectedSeq, `unknown envelope key ${show(key)}`);
  if (raw.seq !== expectedSeq) {
    throw new SessionError(
      "seq-mismatch",
      `event at index ${expectedSeq} has seq ${show(raw.seq)}; seq must equal index`,
      expectedSeq,
    );
  }
  const type = raw.type;
  if (!isEventType(type)) throw envelopeError(expectedSeq, `unknown event type ${show(type)}`);
  const time = raw.time;
  if (typeof time !== "number" || !Number.isFinite(time) || time < 0)
    throw envelopeError(expectedSeq, `time must be epoch ms, got ${show(time)}`);
  validateEventData(type, raw.data, expectedSeq);
  const op = raw.surfaceOp;
  if (isSurfaceEventType(type)) {
    if (op === undefined) throw envelopeError(expectedSeq, `${type} must carry a surfaceOp`);
    validateSurfaceOp(op, expectedSeq);
  } else if (op !== undefined) {
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
export function validateSurfaceOp(op: unknown, seq?: number): asserts op is SurfaceOp {
  if (op === "append") return;
  const ok =
    isRecord(op) &&
    op.op === "replace" &&
    Number.isSafeInteger(op.start) &&
    Number.isSafeInteger(op.end) &&
    Object.keys(op).every((k) => k === "op" || k === "start" || k === "end");
  if (!ok) {
    throw new SessionError(
      "invalid-surface-op",
      `surfaceOp must be 'append' or { op: 'replace', start, end } with integer positions, got ${show(op)}`,
      seq,
    );
  }
}

/** Asserts a session's meta: version 1, a safe id, createdAt, optional cwd/parentSession/seedLength/spawnedBy. */
export function validateSessionMeta(raw: unknown): asserts raw is SessionMeta {
  const fail = (detail: string): never => {
    throw new SessionError("invalid-header", `session header: ${detail}`);
  };
  if (!isRecord(raw)) fail(`expected an object, got ${typeName(raw)}`);
  const h = raw as Record<string, unknown>;
  if (newerLogVersion(h) !== undefined)
    fail(
      `version ${show(h.version)} is newer than this Keelson's log version ${LOG_VERSION} (written by a newer Keelson)`,
    );
  if (h.version !== LOG_VERSION) fail(`unsupported version ${show(h.version)} (expected ${LOG_VERSION})`);
  if (typeof h.id !== "string" || !SESSION_ID.test(h.id)) fail(`id ${show(h.id)} is not a safe session id`);
  if (typeof h.createdAt !== "number" || !Number.isFinite(h.createdAt)) fail("createdAt must be epoch ms");
  if (h.cwd !== undefined && typeof h.cwd !== "string") fail("cwd must be a string");
  if (h.parentSession !== undefined && (typeof h.parentSession !== "string" || !SESSION_ID.test(h.parentSession))) {
    fail("parentSession must be a safe session id");
  }
  if (h.seedLength !== undefined && !(Number.isSafeInteger(h.seedLength) && (h.seedLength as number) >= 0)) {
    fail("seedLength must be a non-negative integer");
  }
  if (h.spawnedBy !== undefined) {
    const by = h.spawnedBy;
    if (!isRecord(by) || Object.keys(by).some((k) => k !== "session" && k !== "callId"))
      fail("spawnedBy must be { session, callId }");
    const { session, callId } = by as Record<string, unknown>;
    if (typeof session !== "string" || !SESSION_ID.test(session)) fail("spawnedBy.session must be a safe session id");
    if (typeof callId !== "string" || callId === "") fail("spawnedBy.callId must be a non-empty string");
  }
}

/** @deprecated Renamed `validateSessionMeta` (#21): "header" now means only the request header. */
export const validateSessionHeader: (raw: unknown) => asserts raw is SessionMeta = validateSessionMeta;

/** True for ids `validateSessionMeta` accepts (letters, digits, `.`, `_`, `-`; ≤ 128). */
export function isSafeSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/**
 * A raw header's `version` when it is a later log version than this Keelson's (an integer above
 * `LOG_VERSION`): the log was written by a newer Keelson. Undefined otherwise (including a
 * version that is simply invalid, which is the header's own error).
 */
export function newerLogVersion(rawHeader: unknown): number | undefined {
  const version = isRecord(rawHeader) ? rawHeader.version : undefined;
  return Number.isSafeInteger(version) && (version as number) > LOG_VERSION ? (version as number) : undefined;
}

/**
 * What a raw event carries that only a newer Keelson would write — `unknown event type "x"` or
 * `unknown envelope key "k"` — or undefined. It says nothing else about the event's validity:
 * a value that is not an object, or has no string type, is plain corruption.
 */
export function unknownEventFeature(raw: unknown): string | undefined {
  if (!isRecord(raw) || typeof raw.type !== "string") return undefined;
  if (!isEventType(raw.type)) return `unknown event type ${show(raw.type)}`;
  for (const key in raw) if (!ENVELOPE_KEYS.has(key)) return `unknown envelope key ${show(key)}`;
  return undefined;
}
