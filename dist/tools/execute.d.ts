import type { HookBus } from "../hooks/index.js";
import type { ToolRegistry } from "./registry.js";
import { type ToolCallOutcome, type ToolHooks, type ToolInvocation } from "./types.js";
export interface ExecuteToolCallInput {
    readonly registry: ToolRegistry;
    readonly hooks: HookBus<ToolHooks>;
    readonly call: Omit<ToolInvocation, "arguments">;
    readonly signal: AbortSignal;
    readonly cwd?: string;
    /** Default per-call timeout (ms) when the tool sets none. Default 120 000. */
    readonly timeoutMs?: number;
}
export declare function executeToolCall(input: ExecuteToolCallInput): Promise<ToolCallOutcome>;
