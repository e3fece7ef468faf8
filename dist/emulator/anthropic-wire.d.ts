import type { CacheBlock } from "./cache-model.js";
import type { EmulatorRequest } from "./types.js";
export interface ParsedAnthropicRequest {
    readonly request: EmulatorRequest;
    readonly blocks: readonly CacheBlock[];
}
export declare function parseAnthropicRequest(raw: unknown): ParsedAnthropicRequest;
