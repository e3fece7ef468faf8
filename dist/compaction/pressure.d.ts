import type { Message } from "../messages/index.js";
import type { SessionEvent } from "../session/index.js";
import type { Pressure } from "./types.js";
export interface PressureInput {
    readonly events: readonly SessionEvent[];
    /** Seqs of the surface nodes, aligned with `history`. */
    readonly surfaceSeqs: readonly number[];
    readonly history: readonly Message[];
    readonly system: string;
    readonly tools: readonly unknown[];
    readonly prefix: readonly Message[];
    readonly measure: (value: unknown) => number;
}
export declare function measurePressure(input: PressureInput): Pressure;
