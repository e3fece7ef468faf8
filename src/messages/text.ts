// Plain text of messages and content blocks, as people read them in a transcript (`keelson
// show`, `sessions`, the inspector's timeline): text as is, other parts as a bracketed note.
import type { AssistantContent, Message, ToolResultPart, UserContent } from "./types.js";

/** Collapses whitespace and cuts `text` to `max` characters with an ellipsis. */
export function previewText(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The parts' text, one per line: images, reasoning and tool calls as `[…]` notes. */
export function contentText(content: readonly (UserContent | AssistantContent | ToolResultPart)[]): string {
  return content
    .map((part) => {
      switch (part.type) {
        case "text":
          return part.text;
        case "image":
          return `[image ${part.mediaType}]`;
        case "reasoning":
          return `[reasoning${part.redacted ? ", redacted" : ""}] ${part.text}`;
        case "tool-call":
          return `[tool-call ${part.name} ${part.arguments}]`;
      }
      return "";
    })
    .join("\n");
}

/** A message's text; a tool result as `[result <callId>(, error)] <text>`. */
export function messageText(message: Message): string {
  if (message.role === "tool") {
    const [result] = message.content;
    return `[result ${result.callId}${result.isError ? ", error" : ""}] ${contentText(result.content)}`;
  }
  return contentText(message.content);
}
