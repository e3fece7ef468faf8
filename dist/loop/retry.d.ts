import type { AssistantResult } from "../llm/core.js";
export interface RetryPolicy {
    /** Total attempts per step, the first included. Default 5. */
    readonly maxAttempts?: number;
    /** First backoff (ms); doubles per attempt. Default 1000. */
    readonly baseDelayMs?: number;
    /** Cap on the computed backoff (ms). A provider's retry-after is honoured as given. Default 30 000. */
    readonly maxDelayMs?: number;
    /** ± fraction of random spread on the backoff. Default 0.2. */
    readonly jitter?: number;
    /** Abortable wait; tests pass one that resolves at once. */
    readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
    readonly random?: () => number;
}
export type RetryAttemptLog = (attempt: number, code: string, delayMs: number) => void;
/** The backoff before retrying after failed attempt `attempt` (1-based). */
export declare function retryDelay(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined): number;
/** Runs `attempt` until it succeeds, fails for good, or the signal aborts. */
export declare function withRetries(policy: RetryPolicy, signal: AbortSignal, attempt: () => Promise<AssistantResult>, log: RetryAttemptLog): Promise<AssistantResult>;
