// Building the request a step sends, branding it as loop-built, and the dev-mode invariant that
// checks it against an independent reconstruction from the log.
import { canonicalJson, type JsonValue } from "../json/index.js";
import type { EpochHeader } from "../header/index.js";
import type { ModelRequest, ProviderRequest } from "../llm/core.js";
import type { Message } from "../messages/index.js";
import { composeRequest, reconstructRequests } from "../reconstruct/index.js";
import type { SessionEvent } from "../session/index.js";
import { LoopError } from "./types.js";

const LOOP_BUILT = new WeakSet<object>();

/** True for requests the loop built (and so are a function of the log). */
export function isLoopBuilt(request: object): boolean {
  return LOOP_BUILT.has(request);
}

/**
 * `composeRequest(header, history)` plus the live parts, frozen. History messages and header
 * parts are already deep-frozen, so only the fresh shell and the messages array are frozen
 * here. `history` may be given as a function (`Session.historySnapshot()`): `messages` is then
 * a getter that builds the frozen array on first read and returns that same array after —
 * a provider that never reads it (a replay's, a benchmark's) costs no O(history) copy per step.
 * Either way the request is frozen and its messages are fixed when it is built.
 */
export function buildRequest(
  header: EpochHeader,
  history: readonly Message[] | (() => readonly Message[]),
  signal: AbortSignal,
  sessionId: string,
): ProviderRequest {
  const prefixLength = header.messagePrefix?.length ?? 0;
  const live = { signal, sessionId, ...(prefixLength > 0 ? { prefixLength } : {}) };
  let request: ProviderRequest;
  if (typeof history === "function") {
    const base = baseOf(header); // everything but the history, in composeRequest's key order
    let messages: readonly Message[] | undefined;
    const prefix = header.messagePrefix ?? [];
    request = Object.freeze({
      ...base,
      get messages(): readonly Message[] {
        messages ??= prefix.length === 0 ? history() : Object.freeze([...prefix, ...history()]);
        return messages;
      },
      ...live,
    });
  } else {
    // `history` is the caller's own fresh array (deriveMessages returns a new one each call).
    const base = composeRequest(header, history);
    request = Object.freeze({ ...base, messages: Object.freeze(base.messages), ...live });
  }
  LOOP_BUILT.add(request);
  return request;
}

/**
 * `composeRequest(header, [])`, kept for the last header seen: the loop's header object stays the
 * same from step to step until a record changes it (its parts are deep-frozen), and the base is
 * only ever spread into a new request, never handed out.
 */
let lastBase: { readonly header: EpochHeader; readonly base: ModelRequest } | undefined;
function baseOf(header: EpochHeader): ModelRequest {
  if (lastBase?.header !== header) lastBase = { header, base: composeRequest(header, []) };
  return lastBase.base;
}

/**
 * The request without its live parts (signal, session id, prefix length), i.e. exactly what
 * `reconstructRequests` rebuilds from the log. Use it to compare what a provider received with
 * the log.
 */
export function loggedPartOf(request: ProviderRequest): JsonValue {
  const { signal: _signal, sessionId: _sessionId, prefixLength: _prefixLength, ...rest } = request;
  return rest as unknown as JsonValue;
}

/**
 * Throws `LoopError('invariant')` unless `request` equals the last request reconstructed from
 * `events` (which must end with this step's dispatch). O(log): development and test mode only.
 */
export function checkInvariant(events: readonly SessionEvent[], request: ProviderRequest, stepStartSeq: number): void {
  const rebuilt = reconstructRequests(events).at(-1);
  if (rebuilt === undefined || rebuilt.stepStartSeq !== stepStartSeq) {
    throw new LoopError(
      "invariant",
      `invariant: the log does not record the request of the step starting at seq ${stepStartSeq}`,
    );
  }
  const sent = canonicalJson(loggedPartOf(request));
  const logged = canonicalJson(rebuilt.request as unknown as JsonValue);
  if (sent !== logged)
    throw new LoopError(
      "invariant",
      `invariant: the request sent differs from the one the log reconstructs\n${describeDifference(loggedPartOf(request), rebuilt.request as unknown as JsonValue)}`,
    );
}

function describeDifference(sent: JsonValue, logged: JsonValue, path = "request"): string {
  if (canonicalJson(sent) === canonicalJson(logged)) return "";
  if (typeof sent === "object" && sent !== null && typeof logged === "object" && logged !== null) {
    const keys = new Set([...Object.keys(sent), ...Object.keys(logged)]);
    for (const key of [...keys].sort()) {
      const a = (sent as Record<string, JsonValue>)[key];
      const b = (logged as Record<string, JsonValue>)[key];
      if (a === undefined || b === undefined) return `${path}.${key}: sent ${short(a)}, log says ${short(b)}`;
      const inner = describeDifference(a, b, Array.isArray(sent) ? `${path}[${key}]` : `${path}.${key}`);
      if (inner !== "") return inner;
    }
  }
  return `${path}: sent ${short(sent)}, log says ${short(logged)}`;
}

function short(v: JsonValue | undefined): string {
  if (v === undefined) return "nothing";
  const s = canonicalJson(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}
