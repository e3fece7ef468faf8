/**
 * `<system-reminder>\n{body}\n</system-reminder>` as one text block. A closing tag inside `body`
 * (from a file, a path, a file name) is escaped here, so no contributor can forget it.
 */
export function reminderContent(body) {
    return [{ type: "text", text: `<system-reminder>\n${escapeReminderClose(body)}\n</system-reminder>` }];
}
/** One user-role message carrying a `<system-reminder>` (the prefix's opener shape). */
export function systemReminder(body) {
    return { role: "user", content: reminderContent(body) };
}
/** Escapes `&`, `<` and `>` (for short, single-line text such as skill descriptions). */
export function escapeXml(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
/**
 * Neutralizes a closing `</system-reminder>` (any case) inside file content as `<\/system-reminder>`,
 * so a file cannot end the envelope early; the rest of the markdown stays verbatim.
 */
export function escapeReminderClose(text) {
    return text.replace(/<\/(system-reminder\s*)>/gi, "<\\/$1>");
}
//# sourceMappingURL=reminder.js.map