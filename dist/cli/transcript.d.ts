import type { AssistantContent, Message, ToolResultPart, UserContent } from "../messages/index.js";
/** Collapses whitespace and cuts `text` to `max` characters with an ellipsis. */
export declare function preview(text: string, max?: number): string;
export declare function contentText(content: readonly (UserContent | AssistantContent | ToolResultPart)[]): string;
export declare function messageText(message: Message): string;
/** Indents every line after the first by `pad`. */
export declare function indent(text: string, pad: string): string;
