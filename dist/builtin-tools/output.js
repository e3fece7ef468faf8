import { ToolFailure } from "./types.js";
export const DEFAULT_OUTPUT_CAP = 30_000;
export const truncationMarker = (more) => `[… output truncated: ${more} more characters …]`;
/** `text` cut to `cap` characters (never inside a surrogate pair) plus the marker, or unchanged. */
export function capOutput(text, cap = DEFAULT_OUTPUT_CAP) {
    if (text.length <= cap)
        return text;
    let end = cap;
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff)
        end -= 1;
    return `${text.slice(0, end)}\n${truncationMarker(text.length - end)}`;
}
/** An error result carrying `text`. */
export function errorOutput(text, code) {
    return { content: [{ type: "text", text }], isError: true, ...(code === undefined ? {} : { meta: { code } }) };
}
/** Runs a tool body; a ToolFailure or a filesystem error (ENOENT, EACCES…) becomes an error result. */
export async function reportFailures(body) {
    try {
        return await body();
    }
    catch (error) {
        if (error instanceof ToolFailure)
            return errorOutput(error.message, error.code);
        const code = error?.code;
        if (error instanceof Error && typeof code === "string" && /^E[A-Z]+$/.test(code))
            return errorOutput(error.message, code);
        throw error;
    }
}
//# sourceMappingURL=output.js.map