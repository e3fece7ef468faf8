import type { InstructionFile } from "./instruction-files.js";
/**
 * The reminder body for `files` (broadest first), or undefined when there is nothing to say
 * (no blocks, no notices). `label` heads each block: `{label}: {path}`.
 */
export declare function renderInstructions(label: string, files: readonly InstructionFile[], budgetBytes: number): string | undefined;
/** The longest prefix of `text` within `maxBytes` UTF-8 bytes that ends on a character boundary. */
export declare function truncateUtf8(text: string, maxBytes: number): string;
