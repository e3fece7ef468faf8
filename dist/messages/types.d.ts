export interface TextBlock {
    readonly type: "text";
    readonly text: string;
}
/** Model reasoning. `signature` (Anthropic thinking) and `redacted` are kept for replay. */
export interface ReasoningBlock {
    readonly type: "reasoning";
    readonly text: string;
    readonly signature?: string;
    readonly redacted?: boolean;
}
/** A tool call as the model produced it; `arguments` is the raw JSON string, unparsed. */
export interface ToolCallBlock {
    readonly type: "tool-call";
    readonly callId: string;
    readonly name: string;
    readonly arguments: string;
}
/** An image ready to send: base64 data plus its media type. */
export interface ImageBlock {
    readonly type: "image";
    readonly mediaType: string;
    readonly data: string;
}
export type ToolResultPart = TextBlock | ImageBlock;
export interface ToolResultBlock {
    readonly type: "tool-result";
    readonly callId: string;
    readonly content: readonly ToolResultPart[];
    readonly isError: boolean;
}
export type UserContent = TextBlock | ImageBlock;
export type AssistantContent = TextBlock | ReasoningBlock | ToolCallBlock;
export type ContentBlock = TextBlock | ReasoningBlock | ToolCallBlock | ImageBlock | ToolResultBlock;
export interface UserMessage {
    readonly role: "user";
    readonly content: readonly UserContent[];
}
export interface AssistantMessage {
    readonly role: "assistant";
    readonly content: readonly AssistantContent[];
}
/** One tool result. Adapters group consecutive tool messages as their wire format requires. */
export interface ToolMessage {
    readonly role: "tool";
    readonly content: readonly [ToolResultBlock];
}
export type Message = UserMessage | AssistantMessage | ToolMessage;
/**
 * Normalized usage in disjoint buckets (ARCHITECTURE.md §6): `inputTokens` is uncached input
 * only; total input = input + cacheRead + cacheWrite. `reasoningTokens` is informational (a part
 * of `outputTokens`).
 */
export interface Usage {
    readonly inputTokens: number;
    readonly cacheReadTokens: number;
    readonly cacheWriteTokens: number;
    readonly outputTokens: number;
    readonly reasoningTokens?: number;
}
export type Role = Message["role"];
