// The JSONL file format: a header line `{"format":"keelson-session",...SessionHeader}`, then
// one event per line, every line terminated by "\n". A final segment without "\n" is a torn
// write (it was never flushed whole) and is dropped on load.
import { isUtf8 } from "node:buffer";
import { StoreError } from "./types.js";
export const FORMAT = "keelson-session";
export function encodeHeaderLine(header) {
    return `${JSON.stringify({ format: FORMAT, ...header })}\n`;
}
export function encodeEventLine(event) {
    return `${JSON.stringify(event)}\n`;
}
/** Parses the header line; throws `foreign` for a file that is not a Keelson session log. */
export function decodeHeaderLine(line, file) {
    let raw;
    try {
        raw = JSON.parse(line);
    }
    catch {
        throw new StoreError("foreign", `${file} is not a Keelson session log: line 1 is not JSON`, { file, line: 1 });
    }
    if (typeof raw !== "object" || raw === null || raw.format !== FORMAT) {
        throw new StoreError("foreign", `${file} is not a Keelson session log: line 1 has no "format":"${FORMAT}"`, {
            file,
            line: 1,
        });
    }
    const { format: _format, ...header } = raw;
    return header;
}
/** Splits a file's bytes into complete lines and a torn tail. */
export function splitLog(bytes) {
    const end = bytes.lastIndexOf(0x0a) + 1;
    const text = bytes.toString("utf8", 0, end);
    const lines = end === 0 ? [] : text.slice(0, -1).split("\n");
    return { lines, committedBytes: end, tornBytes: bytes.length - end };
}
/**
 * The 1-based number of the first committed line that is not valid UTF-8, or undefined. The
 * writer only ever writes UTF-8 (JSON.stringify escapes lone surrogates), so such a line is
 * corruption — which a lossy decode would quietly turn into U+FFFD and load.
 */
export function firstInvalidUtf8Line(bytes, committedBytes) {
    if (isUtf8(bytes.subarray(0, committedBytes)))
        return undefined;
    let line = 1;
    for (let start = 0; start < committedBytes; line++) {
        const end = bytes.indexOf(0x0a, start);
        if (!isUtf8(bytes.subarray(start, end)))
            return line;
        start = end + 1;
    }
    return undefined;
}
//# sourceMappingURL=jsonl-codec.js.map