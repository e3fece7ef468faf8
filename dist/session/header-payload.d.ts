/** What is wrong with an `EpochHeader`-shaped value, or undefined. */
export declare function epochHeaderProblem(raw: unknown, path?: string): string | undefined;
/** What is wrong with a `HeaderDelta`-shaped value, or undefined. */
export declare function headerDeltaProblem(raw: unknown, path?: string): string | undefined;
