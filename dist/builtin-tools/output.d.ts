import type { ToolOutput } from "../tools/index.js";
export declare const DEFAULT_OUTPUT_CAP = 30000;
export declare const truncationMarker: (more: number) => string;
/** `text` cut to `cap` characters (never inside a surrogate pair) plus the marker, or unchanged. */
export declare function capOutput(text: string, cap?: number): string;
/** An error result carrying `text`. */
export declare function errorOutput(text: string, code?: string): ToolOutput;
/** Runs a tool body; a ToolFailure or a filesystem error (ENOENT, EACCES…) becomes an error result. */
export declare function reportFailures(body: () => Promise<ToolOutput>): Promise<ToolOutput>;
