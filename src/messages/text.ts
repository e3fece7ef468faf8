// Plain text of messages and content blocks, as people read them in a transcript (`keelson
// show`, `sessions`, the inspector's timeline): text as is, other parts as a bracketed note.
import type { AssistantContent, Message, ToolResultPart, UserContent } from "./types.js";

/**
 * Collapses whitespace and cuts `text` to `max` characters with an ellipsis (what
 * `text.replace(/\s+/g, " ").trim()` then a cut gives), reading only as far as the cut: listings
 * preview thousands of long prompts.
 */
export function previewText(text: string, max: number): string {
  if (isPreviewed(text, max)) return text.length > max ? `${text.slice(0, max - 1)}…` : text;
  let out = "";
  let space = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) {
      space = out.length > 0;
      continue;
    }
    if (space) out += " ";
    space = false;
    out += text[i];
    if (out.length > max) return `${out.slice(0, max - 1)}…`;
  }
  return out;
}

/**
 * Whether `text`'s first `max + 1` characters are already what the preview makes of them: no
 * white space but single spaces between other characters (a listing previews thousands of
 * prompts, most of them plain or previewed already: they are then cut, not rebuilt).
 */
function isPreviewed(text: string, max: number): boolean {
  const end = Math.min(text.length, max + 1);
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    if (!isSpace(code)) continue;
    if (code !== 0x20 || i === 0 || i + 1 >= text.length || isSpace(text.charCodeAt(i + 1))) return false;
  }
  return true;
}

/** JavaScript's `\s`: white space (tab, vertical tab, form feed, space, NBSP, BOM, Zs) and line terminators. */
function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
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
