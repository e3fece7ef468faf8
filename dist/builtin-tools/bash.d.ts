import type { BuiltinToolOptions } from "./types.js";
export declare const DEFAULT_BASH_TIMEOUT_MS = 120000;
export declare const MAX_BASH_TIMEOUT_MS = 600000;
export declare function bashTool({ workspace, outputCap }: BuiltinToolOptions): import("../tools/types.js").ToolDefinition<import("../tools/input-schema.js").JsonSchemaInput<{
    command: string;
    timeoutMs?: number;
}>>;
