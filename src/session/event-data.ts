// Payload validation for every event type: the log's codec, written by hand because it is the
// product (and because load time must stay near raw JSON.parse; a schema library that copies
// or strips would change logged bytes). Unknown extra keys are allowed: they are still lossless
// JSON and a newer writer may add them. Throws `SessionError` with code `invalid-data`.
import { MessageShapeError, typeName, validateAssistantContent, validateToolResultContent, validateUserContent } from "../messages/index.js";
import { SessionError } from "./errors.js";
import type { EventType } from "./types.js";

type Data = Record<string, unknown>;
type Check = (data: Data, fail: (path: string, detail: string) => never) => void;

const isRecord = (v: unknown): v is Data => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isPositive = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 1;

const positive =
  (...keys: string[]): Check =>
  (d, fail) => {
    for (const k of keys) if (!isPositive(d[k])) fail(k, `expected a positive integer, got ${show(d[k])}`);
  };
const strings =
  (...keys: string[]): Check =>
  (d, fail) => {
    for (const k of keys) if (typeof d[k] !== "string") fail(k, `expected a string, got ${typeName(d[k])}`);
  };
const optional =
  (key: string, test: (v: unknown) => boolean, expected: string): Check =>
  (d, fail) => {
    if (key in d && !test(d[key])) fail(key, `expected ${expected}, got ${show(d[key])}`);
  };
const content =
  (validate: (c: unknown, path: string) => void): Check =>
  (d, fail) => {
    try {
      validate(d.content, "content");
    } catch (e) {
      if (e instanceof MessageShapeError) fail(e.path, e.detail);
      throw e;
    }
  };
const record =
  (key: string): Check =>
  (d, fail) => {
    if (!isRecord(d[key])) fail(key, `expected an object, got ${typeName(d[key])}`);
  };

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? typeName(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

const TURN_END_KINDS = new Set(["completed", "aborted", "error", "disposed", "max-tokens", "rejected", "interrupted"]);

const turnEndReason: Check = (d, fail) => {
  const r = d.reason;
  if (!isRecord(r)) return fail("reason", `expected an object, got ${typeName(r)}`);
  if (typeof r.kind !== "string" || !TURN_END_KINDS.has(r.kind)) fail("reason.kind", `unknown turn-end kind ${show(r.kind)}`);
  if ((r.kind === "aborted" || r.kind === "rejected") && typeof r.reason !== "string") fail("reason.reason", "expected a string");
  if (r.kind === "error") {
    if (!isCount(r.step)) fail("reason.step", `expected a step number, got ${show(r.step)}`);
    if (typeof r.message !== "string") fail("reason.message", "expected a string");
    if ("code" in r && typeof r.code !== "string") fail("reason.code", "expected a string");
  }
};

const usage: Check = (d, fail) => {
  if (!("usage" in d)) return;
  const u = d.usage;
  if (!isRecord(u)) return fail("usage", `expected an object, got ${typeName(u)}`);
  for (const k of ["inputTokens", "cacheReadTokens", "cacheWriteTokens", "outputTokens"]) {
    if (!isCount(u[k])) fail(`usage.${k}`, `expected a token count, got ${show(u[k])}`);
  }
  if ("reasoningTokens" in u && !isCount(u.reasoningTokens)) fail("usage.reasoningTokens", "expected a token count");
};

const HEADER_REASONS = new Set(["initial", "resume", "fallback"]);

const CHECKS: { readonly [T in EventType]: readonly Check[] } = {
  "turn/start": [positive("turn"), strings("trigger")],
  "turn/end": [positive("turn"), turnEndReason],
  "step/start": [positive("turn", "step")],
  "step/end": [positive("turn", "step")],
  "user/message": [strings("source"), content(validateUserContent)],
  "prompt/blocked": [strings("source", "reason"), content(validateUserContent)],
  "context/message": [strings("source"), content(validateUserContent)],
  "steering/message": [positive("turn"), strings("source"), content(validateUserContent)],
  "assistant/message": [
    positive("turn", "step"),
    content(validateAssistantContent),
    usage,
    optional("stopReason", (v) => typeof v === "string", "a string"),
  ],
  "tool/call": [positive("turn", "step"), strings("callId", "name", "arguments")],
  "tool/result": [
    positive("turn", "step"),
    strings("callId"),
    content(validateToolResultContent),
    (d, fail) => {
      if (typeof d.isError !== "boolean") fail("isError", "expected a boolean");
    },
    optional("error", (v) => typeof v === "string", "a string"),
    optional("meta", isRecord, "an object"),
  ],
  "request/header": [
    record("header"),
    (d, fail) => {
      if (!HEADER_REASONS.has(d.reason as string)) fail("reason", `expected initial, resume or fallback, got ${show(d.reason)}`);
    },
  ],
  "request/header-delta": [],
  "llm/retry": [
    positive("turn", "step", "attempt"),
    strings("code"),
    (d, fail) => {
      if (!isCount(d.delayMs)) fail("delayMs", `expected a non-negative integer, got ${show(d.delayMs)}`);
    },
  ],
  "compact/start": [positive("turn"), strings("trigger"), optional("estimatedTokens", isCount, "a token count")],
  "compact/summary": [],
  "compact/end": [positive("turn"), optional("error", (v) => typeof v === "string", "a string")],
};

/** True when `type` names an event in the vocabulary. */
export function isEventType(type: unknown): type is EventType {
  return typeof type === "string" && Object.hasOwn(CHECKS, type);
}

/** Validates `data` as the payload of `type`; throws `SessionError('invalid-data')` naming the field. */
export function validateEventData(type: EventType, data: unknown, seq?: number): void {
  const where = seq === undefined ? type : `${type} (seq ${seq})`;
  const fail = (path: string, detail: string): never => {
    throw new SessionError("invalid-data", `invalid ${where}: data.${path}: ${detail}`, seq);
  };
  if (!isRecord(data)) fail("", `expected an object, got ${typeName(data)}`);
  for (const check of CHECKS[type]) check(data as Data, fail);
}
