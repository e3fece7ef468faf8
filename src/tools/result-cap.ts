// The bound on what one tool result may put in the log, and so before the model: a result whose
// text is longer than the cap keeps its head (text parts in order, the one that crosses the cap
// cut there, never inside a surrogate pair, the later ones dropped), then a marker saying how
// many characters were left out. Images are kept. One oversized result (a third-party tool
// that returns a whole page, a 3 MB dump) would otherwise be sent with every later request of
// the session, and a session whose history cannot fit the model's window fails every turn.
import type { ToolResultPart } from "../messages/index.js";

/** The default cap on a tool result's text, in characters (about 25,000 tokens). */
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 100_000;

/** The marker a capped result ends with. */
export const resultCapMarker = (omitted: number, cap: number): string =>
  `[… tool result truncated: ${omitted} more characters not shown (the result was over ${cap} characters) …]`;

/** `content` within `cap` characters of text, or `content` itself when it is within already. */
export function capToolResult(content: readonly ToolResultPart[], cap: number): readonly ToolResultPart[] {
  let total = 0;
  for (const part of content) if (part.type === "text") total += part.text.length;
  if (total <= cap) return content;
  const kept: ToolResultPart[] = [];
  let room = cap;
  for (const part of content) {
    if (part.type !== "text") kept.push(part);
    else if (part.text.length <= room) {
      kept.push(part);
      room -= part.text.length;
    } else if (room > 0) {
      let end = room;
      const code = part.text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end -= 1;
      if (end > 0) kept.push({ type: "text", text: part.text.slice(0, end) });
      room = 0;
    }
  }
  let shown = 0;
  for (const part of kept) if (part.type === "text") shown += part.text.length;
  kept.push({ type: "text", text: resultCapMarker(total - shown, cap) });
  return kept;
}
