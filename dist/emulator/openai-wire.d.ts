import type { CacheSegment } from "./cache-model.js";
import type { EmulatorRequest } from "./types.js";
export interface ParsedOpenAIRequest {
    readonly request: EmulatorRequest;
    readonly segments: readonly CacheSegment[];
    readonly includeUsage: boolean;
}
export declare function parseOpenAIRequest(raw: unknown): ParsedOpenAIRequest;
