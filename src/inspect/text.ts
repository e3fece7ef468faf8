// Plain text of messages and content blocks for timeline rows (the CLI's transcript wording).
import { previewText } from "../messages/index.js";

export { contentText, messageText } from "../messages/index.js";

/** Collapses whitespace and cuts `text` to `max` characters (160 by default) with an ellipsis. */
export const preview = (text: string, max = 160): string => previewText(text, max);
