import type { AssistantContent, Message, ToolResultPart, UserContent } from "./types.js";
import { KeelsonError } from "../errors/index.js";
export declare class MessageShapeError extends KeelsonError<"invalid-message"> {
    readonly path: string;
    readonly detail: string;
    constructor(path: string, detail: string);
}
export declare function typeName(v: unknown): string;
/** Asserts user-side content: text and image blocks. */
export declare function validateUserContent(content: unknown, path?: string): asserts content is UserContent[];
/** Asserts assistant content: text, reasoning and tool-call blocks. */
export declare function validateAssistantContent(content: unknown, path?: string): asserts content is AssistantContent[];
/** Asserts tool-result content: text and image blocks. */
export declare function validateToolResultContent(content: unknown, path?: string): asserts content is ToolResultPart[];
/** Asserts a single message of any role. */
export declare function validateMessage(message: unknown, path?: string): asserts message is Message;
/** Asserts a list of messages (e.g. a composed session prefix). */
export declare function validateMessages(messages: unknown, path?: string): asserts messages is Message[];
