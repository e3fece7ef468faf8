import type { Message } from "../messages/index.js";
export interface Region {
    readonly start: number;
    readonly end: number;
    readonly tokens: number;
}
export declare function chooseRegion(history: readonly Message[], sizes: readonly number[], keepRecentTokens: number): Region | undefined;
