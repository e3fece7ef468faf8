export type TokenCounter = (text: string) => number;
export declare const estimateTokens: TokenCounter;
/** A counter for JSON-ish values (messages, tool schemas), memoized by object identity. */
export declare function valueCounter(count: TokenCounter): (value: unknown) => number;
