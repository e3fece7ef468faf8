// Plain-text rendering of messages and content blocks for `show` and `sessions`.
import { previewText } from "../messages/index.js";

export { contentText, messageText } from "../messages/index.js";

/** Collapses whitespace and cuts `text` to `max` characters (60 by default) with an ellipsis. */
export const preview = (text: string, max = 60): string => previewText(text, max);

/** Indents every line after the first by `pad`. */
export function indent(text: string, pad: string): string {
  return text.split("\n").join(`\n${pad}`);
}
