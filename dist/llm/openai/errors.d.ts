export interface FailureContext {
    /** The adapter aborted the request because no chunk arrived within `stallTimeoutMs`. */
    readonly stalled: boolean;
    /** The caller's signal aborted. */
    readonly aborted: boolean;
    readonly stallTimeoutMs: number;
}
/** The error to throw for `error`: a ProviderError, or the abort error itself. */
export declare function toProviderError(error: unknown, { APIConnectionError, APIError, APIUserAbortError }: typeof import("openai"), context: FailureContext): unknown;
