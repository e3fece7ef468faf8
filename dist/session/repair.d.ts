import type { LogStructure } from "./structure.js";
import type { PendingEvent } from "./types.js";
export interface CloserOptions {
    /** Text of the synthetic error result for each unanswered call. */
    readonly resultText?: string;
    /** The `error` code on those results (default `interrupted`). */
    readonly error?: string;
    /** Append `turn/end{interrupted}` (default true); false closes only the open step. */
    readonly closeTurn?: boolean;
}
/**
 * Closers for the open turn tracked by `structure`, in append order; empty if none is open.
 * Crash repair uses the defaults; the loop, ending a turn early, closes only the open step
 * with its own wording (`closeTurn: false`).
 */
export declare function crashRepairClosers(structure: LogStructure, options?: CloserOptions): PendingEvent[];
