// Building the request a step sends, branding it as loop-built, and the dev-mode invariant that
// checks it against an independent reconstruction from the log.
import { canonicalJson } from "../json/index.js";
import { composeRequest, reconstructRequests } from "../reconstruct/index.js";
import { LoopError } from "./types.js";
const LOOP_BUILT = new WeakSet();
/** True for requests the loop built (and so are a function of the log). */
export function isLoopBuilt(request) {
    return LOOP_BUILT.has(request);
}
/**
 * `composeRequest(header, history)` plus the live parts, frozen. History messages and header
 * parts are already deep-frozen, so only the fresh shell and the messages array are frozen
 * here: O(1) beyond the array the step needs anyway.
 */
export function buildRequest(header, history, signal, sessionId) {
    const base = composeRequest(header, history);
    // `history` is the step's own fresh array (deriveMessages returns a new one each call).
    const prefixLength = header.messagePrefix?.length ?? 0;
    const request = Object.freeze({
        ...base,
        messages: Object.freeze(base.messages),
        signal,
        sessionId,
        ...(prefixLength > 0 ? { prefixLength } : {}),
    });
    LOOP_BUILT.add(request);
    return request;
}
/**
 * The request without its live parts (signal, session id, prefix length), i.e. exactly what
 * `reconstructRequests` rebuilds from the log. Use it to compare what a provider received with
 * the log.
 */
export function loggedPartOf(request) {
    const { signal: _signal, sessionId: _sessionId, prefixLength: _prefixLength, ...rest } = request;
    return rest;
}
/**
 * Throws `LoopError('invariant')` unless `request` equals the last request reconstructed from
 * `events` (which must end with this step's dispatch). O(log): development and test mode only.
 */
export function checkInvariant(events, request, stepStartSeq) {
    const rebuilt = reconstructRequests(events).at(-1);
    if (rebuilt === undefined || rebuilt.stepStartSeq !== stepStartSeq) {
        throw new LoopError("invariant", `invariant: the log does not record the request of the step starting at seq ${stepStartSeq}`);
    }
    const sent = canonicalJson(loggedPartOf(request));
    const logged = canonicalJson(rebuilt.request);
    if (sent !== logged)
        throw new LoopError("invariant", `invariant: the request sent differs from the one the log reconstructs\n${describeDifference(loggedPartOf(request), rebuilt.request)}`);
}
function describeDifference(sent, logged, path = "request") {
    if (canonicalJson(sent) === canonicalJson(logged))
        return "";
    if (typeof sent === "object" && sent !== null && typeof logged === "object" && logged !== null) {
        const keys = new Set([...Object.keys(sent), ...Object.keys(logged)]);
        for (const key of [...keys].sort()) {
            const a = sent[key];
            const b = logged[key];
            if (a === undefined || b === undefined)
                return `${path}.${key}: sent ${short(a)}, log says ${short(b)}`;
            const inner = describeDifference(a, b, Array.isArray(sent) ? `${path}[${key}]` : `${path}.${key}`);
            if (inner !== "")
                return inner;
        }
    }
    return `${path}: sent ${short(sent)}, log says ${short(logged)}`;
}
function short(v) {
    if (v === undefined)
        return "nothing";
    const s = canonicalJson(v);
    return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}
//# sourceMappingURL=request.js.map