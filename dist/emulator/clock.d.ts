import type { Clock } from "./types.js";
/** 2023-11-14T22:13:20Z: a fixed, realistic epoch so OpenAI `created` fields look real and never vary. */
export declare const DEFAULT_EPOCH_MS = 1700000000000;
export declare class SimulatedClock implements Clock {
    #private;
    constructor(startMs?: number);
    now(): number;
    /** Moves time forward; a negative step is a programming error. */
    advance(ms: number): number;
}
