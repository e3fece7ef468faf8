// The `<system-reminder>` envelope every contributor renders into, and the two escapes that keep
// file and frontmatter text from breaking out of it.
import type { UserContent, UserMessage } from "../messages/index.js";

/**
 * `<system-reminder>\n{body}\n</system-reminder>` as one text block. A closing tag inside `body`
 * (from a file, a path, a file name) is escaped here, so no contributor can forget it.
 */
export function reminderContent(body: string): readonly UserContent[] {
  return [{ type: "text", text: `<system-reminder>\n${escapeReminderClose(body)}\n</system-reminder>` }];
}

/** One user-role message carrying a `<system-reminder>` (the prefix's opener shape). */
export function systemReminder(body: string): UserMessage {
  return { role: "user", content: reminderContent(body) };
}

/** Escapes `&`, `<` and `>` (for short, single-line text such as skill descriptions). */
export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Neutralizes a closing `</system-reminder>` (any case) inside file content as `<\/system-reminder>`,
 * so a file cannot end the envelope early; the rest of the markdown stays verbatim.
 */
export function escapeReminderClose(text: string): string {
  return text.replace(/<\/(system-reminder\s*)>/gi, "<\\/$1>");
}
