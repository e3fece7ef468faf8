import { WireError } from "./types.js";
export type FaultKind = "http-429" | "http-500" | "http-503" | "http-529"
/** Anthropic `event: error` (overloaded_error) / OpenAI `data: {"error":…}` mid-stream. */
 | "stream-error"
/** The socket is destroyed partway through an event. */
 | "reset"
/** Headers (and `afterEvents` events) sent, then silence until the client leaves or `releaseStalls()`. */
 | "stall"
/** A garbage event the SSE JSON parser rejects. */
 | "malformed-sse"
/** OpenAI: no `data: [DONE]`; Anthropic: no `message_stop`. */
 | "missing-done";
export declare const FAULT_KINDS: readonly FaultKind[];
export interface Fault {
    readonly kind: FaultKind;
    /** `http-429` only: the `retry-after` header, in seconds. */
    readonly retryAfterSeconds?: number;
    /** Stream faults: events sent before the fault strikes (clamped to leave the stream unfinished). */
    readonly afterEvents?: number;
}
export interface FaultOptions {
    /** Probability per request of a seeded fault when the FIFO is empty (default 0). */
    readonly rate?: number;
    readonly seed?: number;
    /** Kinds the seeded rate draws from (default: all). */
    readonly kinds?: readonly FaultKind[];
    /** Default `retry-after` for `http-429` (default 1 s). */
    readonly retryAfterSeconds?: number;
}
/** A small seeded PRNG (uniform in [0, 1)). */
export declare function mulberry32(seed: number): () => number;
export declare class FaultPlan {
    #private;
    constructor(options?: FaultOptions);
    /** Queues faults for the next requests, one per request, in order. */
    next(...faults: (FaultKind | Fault)[]): this;
    get pending(): number;
    clear(): void;
    /** The fault for the request now arriving, if any (FIFO first, then the seeded rate). */
    take(): Fault | undefined;
    /** Events to send before a stream fault, clamped so at least one event is withheld. */
    afterEvents(fault: Fault, eventCount: number): number;
    /** The HTTP error an `http-*` fault answers with; undefined for stream faults. */
    httpError(fault: Fault): WireError | undefined;
}
