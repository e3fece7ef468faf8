import type { UserContent, UserMessage } from "../messages/index.js";
/**
 * `<system-reminder>\n{body}\n</system-reminder>` as one text block. A closing tag inside `body`
 * (from a file, a path, a file name) is escaped here, so no contributor can forget it.
 */
export declare function reminderContent(body: string): readonly UserContent[];
/** One user-role message carrying a `<system-reminder>` (the prefix's opener shape). */
export declare function systemReminder(body: string): UserMessage;
/** Escapes `&`, `<` and `>` (for short, single-line text such as skill descriptions). */
export declare function escapeXml(text: string): string;
/**
 * Neutralizes a closing `</system-reminder>` (any case) inside file content as `<\/system-reminder>`,
 * so a file cannot end the envelope early; the rest of the markdown stays verbatim.
 */
export declare function escapeReminderClose(text: string): string;
