export interface SpinnerOutput {
    readonly isTTY?: boolean;
    write(text: string): unknown;
}
export interface SpinnerTimers {
    setInterval(fn: () => void, ms: number): unknown;
    clearInterval(handle: unknown): void;
}
export declare class Spinner {
    #private;
    constructor(out: SpinnerOutput, timers?: SpinnerTimers);
    get spinning(): boolean;
    /** Starts (or relabels) the spinner; a no-op when the output is not a terminal. */
    start(label: string): void;
    /** Stops and erases the spinner line. */
    stop(): void;
}
