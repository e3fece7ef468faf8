import type { Usage } from "../messages/index.js";
import { type FinishReason, type Provider, type ProviderFailure, type ProviderRequest, type StreamChunk } from "./types.js";
export interface ScriptedToolCall {
    readonly name: string;
    /** Raw JSON text, or a value that is JSON.stringify'd. */
    readonly arguments?: string | object;
}
export type ScriptedReply = {
    readonly text?: string;
    readonly reasoning?: string;
    readonly toolCalls?: readonly ScriptedToolCall[];
    readonly usage?: Partial<Usage>;
    /** Defaults to `tool-calls` when there are tool calls, else `stop`. */
    readonly finish?: FinishReason;
} | {
    readonly error: ProviderFailure;
} | {
    readonly throws: Error;
} | "hang";
export type ScriptedStep = ScriptedReply | ((request: ProviderRequest) => ScriptedReply | Promise<ScriptedReply>);
export interface ScriptedProviderOptions {
    readonly id?: string;
    /** Answers requests once the FIFO is empty; without it an empty script is a ProviderError. */
    readonly fallback?: ScriptedStep;
    /** Keep every request in `requests` (default true); benchmarks turn it off to hold no history. */
    readonly record?: boolean;
}
export declare class ScriptedProvider implements Provider {
    #private;
    readonly id: string;
    readonly requests: ProviderRequest[];
    constructor(script?: readonly ScriptedStep[], options?: ScriptedProviderOptions);
    /** Appends steps to the script. */
    push(...steps: ScriptedStep[]): this;
    /** Steps not consumed yet. */
    get remaining(): number;
    stream(request: ProviderRequest): AsyncGenerator<StreamChunk>;
}
/** The content variant of a reply (text, reasoning, tool calls), as opposed to `'hang'`, `{error}`, `{throws}`. */
export type ContentReply = Exclude<ScriptedReply, "hang" | {
    readonly error: unknown;
} | {
    readonly throws: Error;
}>;
export declare function isContentReply(reply: ScriptedReply): reply is ContentReply;
/**
 * The stream for a control reply, shared by every scripted model (this provider, the emulator):
 * `'hang'` waits for the abort and finishes `aborted`; `{error}` finishes `error`; `{throws}` throws.
 */
export declare function controlReplyChunks(reply: Exclude<ScriptedReply, ContentReply>, signal: AbortSignal): AsyncGenerator<StreamChunk>;
