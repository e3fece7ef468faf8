// Payload validation for every event type: the log's codec, written by hand because it is the
// product (and because load time must stay near raw JSON.parse; a schema library that copies
// or strips would change logged bytes). Unknown extra keys are allowed: they are still lossless
// JSON and a newer writer may add them. Throws `SessionError` with code `invalid-data`.
//
// Each check returns `undefined` or a problem ("field: detail"); no closures are made per call,
// since this runs once per event on every load.
import { previewJson } from "../json/index.js";
import {
  MessageShapeError,
  typeName,
  validateAssistantContent,
  validateToolResultContent,
  validateUserContent,
} from "../messages/index.js";
import { SessionError } from "./errors.js";
import { epochHeaderProblem, headerDeltaProblem } from "./header-payload.js";
import type { EventType, SessionEvent } from "./types.js";

type Data = Record<string, unknown>;
type Check = (data: Data) => string | undefined;

const isRecord = (v: unknown): v is Data => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isPositive = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1;
const isString = (v: unknown): v is string => typeof v === "string";

/** A value as it appears in an error message (bounded: a hostile log can hold megabytes). */
export function show(v: unknown): string {
  return v === undefined || typeof v === "function" || typeof v === "symbol" ? typeName(v) : previewJson(v);
}

const positive =
  (...keys: string[]): Check =>
  (d) => {
    for (const k of keys) if (!isPositive(d[k])) return `${k}: expected a positive integer, got ${show(d[k])}`;
    return undefined;
  };
const strings =
  (...keys: string[]): Check =>
  (d) => {
    for (const k of keys) if (typeof d[k] !== "string") return `${k}: expected a string, got ${typeName(d[k])}`;
    return undefined;
  };
const optional =
  (key: string, test: (v: unknown) => boolean, expected: string): Check =>
  (d) =>
    key in d && !test(d[key]) ? `${key}: expected ${expected}, got ${show(d[key])}` : undefined;
const required =
  (key: string, test: (v: unknown) => boolean, expected: string): Check =>
  (d) =>
    test(d[key]) ? undefined : `${key}: expected ${expected}, got ${show(d[key])}`;
const content =
  (validate: (c: unknown, path: string) => void): Check =>
  (d) => {
    try {
      validate(d.content, "content");
      return undefined;
    } catch (e) {
      if (e instanceof MessageShapeError) return `${e.path}: ${e.detail}`;
      throw e;
    }
  };

const TURN_END_KINDS = new Set([
  "completed",
  "awaiting-approval",
  "awaiting-input",
  "aborted",
  "error",
  "disposed",
  "max-tokens",
  "rejected",
  "interrupted",
]);

const turnEndReason: Check = (d) => {
  const r = d.reason;
  if (!isRecord(r)) return `reason: expected an object, got ${typeName(r)}`;
  if (typeof r.kind !== "string" || !TURN_END_KINDS.has(r.kind))
    return `reason.kind: unknown turn-end kind ${show(r.kind)}`;
  if ((r.kind === "aborted" || r.kind === "rejected") && !isString(r.reason)) return "reason.reason: expected a string";
  if (r.kind === "error") {
    if (!isCount(r.step)) return `reason.step: expected a step number, got ${show(r.step)}`;
    if (!isString(r.message)) return "reason.message: expected a string";
    if ("code" in r && !isString(r.code)) return "reason.code: expected a string";
  }
  return undefined;
};

const USAGE_KEYS = ["inputTokens", "cacheReadTokens", "cacheWriteTokens", "outputTokens"];
const usage: Check = (d) => {
  if (!("usage" in d)) return undefined;
  const u = d.usage;
  if (!isRecord(u)) return `usage: expected an object, got ${typeName(u)}`;
  for (const k of USAGE_KEYS) if (!isCount(u[k])) return `usage.${k}: expected a token count, got ${show(u[k])}`;
  if ("reasoningTokens" in u && !isCount(u.reasoningTokens)) return "usage.reasoningTokens: expected a token count";
  return undefined;
};

const HEADER_REASONS = new Set(["initial", "resume", "fallback"]);

const CHECKS: { readonly [T in EventType]: readonly Check[] } = {
  "turn/start": [positive("turn"), strings("trigger")],
  "turn/end": [positive("turn"), turnEndReason],
  "step/start": [positive("turn", "step")],
  "step/end": [positive("turn", "step"), optional("dispatched", (v) => v === false, "false (or absent)")],
  "user/message": [strings("source"), content(validateUserContent)],
  "prompt/blocked": [strings("source", "reason"), content(validateUserContent)],
  "context/message": [strings("source"), content(validateUserContent)],
  "steering/message": [positive("turn"), strings("source"), content(validateUserContent)],
  "assistant/message": [
    positive("turn", "step"),
    content(validateAssistantContent),
    usage,
    optional("stopReason", isString, "a string"),
  ],
  "tool/call": [positive("turn", "step"), strings("callId", "name", "arguments")],
  "tool/result": [
    positive("turn", "step"),
    strings("callId"),
    content(validateToolResultContent),
    required("isError", (v) => typeof v === "boolean", "a boolean"),
    optional("error", isString, "a string"),
    optional("meta", isRecord, "an object"),
  ],
  "request/header": [
    (d) => epochHeaderProblem(d.header),
    required("reason", (v) => HEADER_REASONS.has(v as string), "initial, resume or fallback"),
  ],
  "request/header-delta": [(d) => headerDeltaProblem(d)],
  "llm/retry": [
    positive("turn", "step", "attempt"),
    strings("code"),
    required("delayMs", isCount, "a non-negative integer"),
  ],
  "approval/request": [positive("turn", "step"), strings("callId", "tool", "arguments", "reason")],
  "approval/decision": [
    strings("callId"),
    required("approve", (v) => typeof v === "boolean", "a boolean"),
    optional("by", isString, "a string"),
    optional("note", isString, "a string"),
    optional("arguments", isString, "a string (JSON text)"),
    (d) => (d.approve === false && "arguments" in d ? "arguments: only an approval may edit the arguments" : undefined),
  ],
  "input/request": [
    strings("id", "source", "message"),
    required("schema", isRecord, "a JSON Schema object"),
    optional("callId", isString, "a string"),
  ],
  "input/response": [
    strings("id"),
    required("value", (v) => v !== undefined, "a JSON value"),
    optional("by", isString, "a string"),
  ],
  "mcp/sampling-request": [
    strings("id", "callId", "server"),
    required(
      "request",
      (v) => isRecord(v) && isString(v.model) && Array.isArray(v.messages) && isPositive(v.maxTokens),
      "a request ({ model, messages, maxTokens, … })",
    ),
  ],
  "mcp/sampling-response": [
    strings("id", "callId"),
    (d) => ("content" in d ? content(validateAssistantContent)(d) : undefined),
    usage,
    optional("stopReason", isString, "a string"),
    optional("error", (v) => isRecord(v) && isString(v.code) && isString(v.message), "{ code, message }"),
  ],
  "compact/start": [positive("turn"), strings("trigger"), optional("estimatedTokens", isCount, "a token count")],
  "compact/summary": [],
  "compact/end": [positive("turn"), optional("error", isString, "a string")],
};

/** Narrows a logged event to one type (its `data` is then typed). */
export function isEventOf<T extends EventType>(event: SessionEvent, type: T): event is SessionEvent<T> {
  return event.type === type;
}

/** True when `type` names an event in the vocabulary. */
export function isEventType(type: unknown): type is EventType {
  return typeof type === "string" && Object.hasOwn(CHECKS, type);
}

/** Validates `data` as the payload of `type`; throws `SessionError('invalid-data')` naming the field. */
export function validateEventData(type: EventType, data: unknown, seq?: number): void {
  let problem: string | undefined;
  if (!isRecord(data)) problem = `expected an object, got ${typeName(data)}`;
  else {
    for (const check of CHECKS[type]) {
      problem = check(data);
      if (problem !== undefined) break;
    }
  }
  if (problem !== undefined) {
    const where = seq === undefined ? type : `${type} (seq ${seq})`;
    throw new SessionError("invalid-data", `invalid ${where}: data.${problem}`, seq);
  }
}
