import type { Message, ToolResultPart } from "../messages/index.js";
export interface PruneCandidate {
    readonly index: number;
    readonly callId: string;
    readonly content: readonly ToolResultPart[];
    readonly isError: boolean;
    readonly tokens: number;
}
/** Oversized tool results in `history[0..limit)`, largest first. */
export declare function pruneCandidates(history: readonly Message[], sizes: readonly number[], limit: number, aboveTokens: number): PruneCandidate[];
/** Head and tail of the text (≈ keepTokens each, at 4 bytes per token), with a marker naming what was cut. */
export declare function prunedContent(content: readonly ToolResultPart[], keepTokens: number): ToolResultPart[];
