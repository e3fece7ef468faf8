import { type JsonValue } from "../json/index.js";
import type { EpochHeader } from "../header/index.js";
import type { ProviderRequest } from "../llm/core.js";
import type { Message } from "../messages/index.js";
import type { SessionEvent } from "../session/index.js";
/** True for requests the loop built (and so are a function of the log). */
export declare function isLoopBuilt(request: object): boolean;
/**
 * `composeRequest(header, history)` plus the live parts, frozen. History messages and header
 * parts are already deep-frozen, so only the fresh shell and the messages array are frozen
 * here: O(1) beyond the array the step needs anyway.
 */
export declare function buildRequest(header: EpochHeader, history: readonly Message[], signal: AbortSignal, sessionId: string): ProviderRequest;
/**
 * The request without its live parts (signal, session id, prefix length), i.e. exactly what
 * `reconstructRequests` rebuilds from the log. Use it to compare what a provider received with
 * the log.
 */
export declare function loggedPartOf(request: ProviderRequest): JsonValue;
/**
 * Throws `LoopError('invariant')` unless `request` equals the last request reconstructed from
 * `events` (which must end with this step's dispatch). O(log): development and test mode only.
 */
export declare function checkInvariant(events: readonly SessionEvent[], request: ProviderRequest, stepStartSeq: number): void;
