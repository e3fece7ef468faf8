import type { ToolSchema } from "../llm/index.js";
import type { ContentBlock, Message } from "../messages/index.js";
import type { CacheSegment } from "./cache-model.js";
/** Flat cost of one image (the emulator does not decode images). */
export declare const IMAGE_TOKENS = 1000;
/** Role and separator tokens per message in the chat formats. */
export declare const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens of one content block's model-visible text. */
export declare function contentBlockTokens(block: ContentBlock): number;
/** Tokens of one tool definition as the model sees it (name, description, schema). */
export declare function toolTokens(tool: ToolSchema): number;
/** Anthropic unit: one content block; its hash covers the role and position that frame it. */
export declare function blockUnit(role: string, indexInMessage: number, block: ContentBlock): {
    tokens: number;
    hash: string;
};
/** Anthropic unit: one tool definition. */
export declare function toolUnit(tool: ToolSchema): {
    tokens: number;
    hash: string;
};
/** Anthropic unit: one system text block. */
export declare function systemUnit(text: string): {
    tokens: number;
    hash: string;
};
/** Automatic-caching unit: one whole message (reasoning excluded, as it is never sent back). */
export declare function messageSegment(message: Message): CacheSegment;
/** Automatic-caching unit: a system (or developer) message. */
export declare function systemSegment(text: string): CacheSegment;
/** Automatic-caching unit: the tool list (rendered ahead of the messages). */
export declare function toolsSegment(tools: readonly ToolSchema[]): CacheSegment;
