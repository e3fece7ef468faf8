import type { SessionEvent, SessionHeader } from "../session/index.js";
export declare const FORMAT = "keelson-session";
export declare function encodeHeaderLine(header: SessionHeader): string;
export declare function encodeEventLine(event: SessionEvent): string;
/** Parses the header line; throws `foreign` for a file that is not a Keelson session log. */
export declare function decodeHeaderLine(line: string, file: string): unknown;
export interface SplitLog {
    /** Complete lines (without their "\n"), header line first. */
    readonly lines: string[];
    /** Byte length of the complete lines, "\n" included: the committed region. */
    readonly committedBytes: number;
    /** Bytes after the last "\n": a torn final line. */
    readonly tornBytes: number;
}
/** Splits a file's bytes into complete lines and a torn tail. */
export declare function splitLog(bytes: Buffer): SplitLog;
/**
 * The 1-based number of the first committed line that is not valid UTF-8, or undefined. The
 * writer only ever writes UTF-8 (JSON.stringify escapes lone surrogates), so such a line is
 * corruption — which a lossy decode would quietly turn into U+FFFD and load.
 */
export declare function firstInvalidUtf8Line(bytes: Buffer, committedBytes: number): number | undefined;
