import { escapeReminderClose } from "./reminder.js";
const SEPARATOR = "\n\n";
const utf8Length = (text) => Buffer.byteLength(text, "utf8");
/**
 * The reminder body for `files` (broadest first), or undefined when there is nothing to say
 * (no blocks, no notices). `label` heads each block: `{label}: {path}`.
 */
export function renderInstructions(label, files, budgetBytes) {
    const notices = [];
    const blocks = [];
    for (const file of files) {
        if (file.status === "ok") {
            const content = escapeReminderClose(file.content.trimEnd());
            if (content.trim() !== "")
                blocks.push({ path: file.path, heading: `${label}: ${file.path}\n`, content });
        }
        else
            notices.push(fileNotice(file));
    }
    const fitted = fitToBudget(blocks, budgetBytes);
    notices.push(...fitted.notices);
    const parts = fitted.blocks.map((b) => b.heading + b.content);
    if (notices.length > 0)
        parts.push(notices.map((n) => `Notice: ${n}`).join("\n"));
    return parts.length === 0 ? undefined : parts.join(SEPARATOR);
}
function fileNotice(file) {
    switch (file.status) {
        case "symlink":
            return `refused (symbolic link): ${file.path}`;
        case "not-a-file":
            return `skipped (not a regular file): ${file.path}`;
        case "too-large":
            return `ignored (too large, ${file.detail}): ${file.path}`;
        case "unreadable":
            return `skipped (unreadable, ${file.detail}): ${file.path}`;
    }
}
function fitToBudget(all, budget) {
    const blocks = [...all];
    const size = () => blocks.reduce((sum, b) => sum + utf8Length(b.heading) + utf8Length(b.content), 0) +
        SEPARATOR.length * Math.max(0, blocks.length - 1);
    const dropped = [];
    while (blocks.length > 1 && size() > budget)
        dropped.push(blocks.shift().path);
    const notices = [];
    const last = blocks[0];
    if (last !== undefined && size() > budget) {
        const room = budget - utf8Length(last.heading);
        const kept = room > 0 ? truncateUtf8(last.content, room) : "";
        if (kept === "") {
            dropped.push(blocks.shift().path);
        }
        else {
            blocks[0] = { ...last, content: kept };
            notices.push(`truncated to fit the ${budget}-byte instructions budget: ${last.path} (kept ${utf8Length(kept)} of ${utf8Length(last.content)} bytes)`);
        }
    }
    if (dropped.length > 0)
        notices.unshift(`dropped to fit the ${budget}-byte instructions budget: ${dropped.join(", ")}`);
    return { blocks, notices };
}
/** The longest prefix of `text` within `maxBytes` UTF-8 bytes that ends on a character boundary. */
export function truncateUtf8(text, maxBytes) {
    const bytes = Buffer.from(text, "utf8");
    if (bytes.length <= maxBytes)
        return text;
    let end = maxBytes;
    while (end > 0 && (bytes[end] & 0xc0) === 0x80)
        end--; // back off continuation bytes
    return bytes.subarray(0, end).toString("utf8");
}
//# sourceMappingURL=instructions-render.js.map