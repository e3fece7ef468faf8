// Plain text of messages and content blocks for timeline rows (the CLI's transcript wording).
import type { AssistantContent, Message, ToolResultPart, UserContent } from "../messages/index.js";

/** Collapses whitespace and cuts `text` to `max` characters with an ellipsis. */
export function preview(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

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

export function messageText(message: Message): string {
  if (message.role === "tool") {
    const [result] = message.content;
    return `[result ${result.callId}${result.isError ? ", error" : ""}] ${contentText(result.content)}`;
  }
  return contentText(message.content);
}
