/** Whitespace-delimited pieces longer than this are estimated, never encoded. */
export declare const MAX_ENCODED_PIECE = 200;
/** Tokens in `text` under cl100k_base, with the slow-case guard. Deterministic; memoized. */
export declare function countTokens(text: string): number;
/**
 * The longest prefix of `text` that fits in `maxTokens` under the same piecewise counting
 * (pieces are kept whole; a piece that does not fit is cut by the chars/4 estimate).
 */
export declare function truncateToTokens(text: string, maxTokens: number): string;
