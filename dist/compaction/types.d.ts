import type { ModelRegistry } from "../llm/core.js";
import { KeelsonError } from "../errors/index.js";
export interface CompactionOptions {
    /** Context windows by model; defaults to `new ModelRegistry()`. */
    readonly models?: ModelRegistry;
    /** Overrides the registry's context window (tokens). */
    readonly contextWindow?: number;
    /** Compact when pressure exceeds this share of the window. Default 0.8. */
    readonly thresholdRatio?: number;
    /** Recent history (tokens) never summarized. Default 8 000. */
    readonly keepRecentTokens?: number;
    /** Token counter for text; default ≈ bytes/4. Pass a real tokenizer for precision. */
    readonly countTokens?: (text: string) => number;
    /** A tool result larger than this (tokens) is pruned first. Default 4 000. */
    readonly pruneAboveTokens?: number;
    /** What a pruned result keeps from its head and its tail (tokens each). Default 500. */
    readonly pruneKeepTokens?: number;
    /** `maxTokens` for the summary call. Default 2 000. */
    readonly summaryMaxTokens?: number;
}
/** What the gate measured. */
export interface Pressure {
    readonly system: number;
    readonly tools: number;
    readonly prefix: number;
    readonly history: number;
    readonly total: number;
    /** True when anchored on the last provider-reported usage (only later additions estimated). */
    readonly anchored: boolean;
}
export type CompactionErrorCode = "floor" | "no-region" | "summary-too-long";
export declare class CompactionError extends KeelsonError<CompactionErrorCode> {
}
