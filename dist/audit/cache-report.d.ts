import { type ModelRegistry } from "../llm/core.js";
import type { Usage } from "../messages/index.js";
import type { SessionEvent } from "../session/index.js";
export type Segment = "tools" | "system" | "prefix" | "history";
export interface RequestCacheLine {
    readonly turn: number;
    readonly step: number;
    readonly model: string;
    /** Estimated prompt tokens of the whole request. */
    readonly promptTokens: number;
    /** Estimated tokens shared with the previous request (what a prefix cache could serve). */
    readonly cacheableTokens: number;
    /** The first segment that differs from the previous request; null when this one extends it. */
    readonly firstChange: Segment | null;
    /** What the provider reported for this step's final attempt (absent if no usage was logged). */
    readonly usage?: Usage;
    /** USD under the registry's pricing, when the model is known and usage was logged. */
    readonly cost?: number;
}
export interface CacheReport {
    readonly requests: readonly RequestCacheLine[];
    readonly totals: {
        readonly promptTokens: number;
        readonly cacheableTokens: number;
        readonly inputTokens: number;
        readonly cacheReadTokens: number;
        readonly cacheWriteTokens: number;
        readonly outputTokens: number;
        /** Reported cache reads ÷ reported total input. */
        readonly cacheHitShare: number;
        readonly cost: number;
    };
}
export interface CacheReportOptions {
    /** Token counter for text; default ≈ bytes/4 (pass a real tokenizer for precise numbers). */
    readonly countTokens?: (text: string) => number;
    readonly models?: ModelRegistry;
}
export declare function cacheReport(events: readonly SessionEvent[], options?: CacheReportOptions): CacheReport;
