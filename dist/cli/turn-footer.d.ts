import type { Usage } from "../messages/index.js";
import { type SessionEvent, type TurnEndReason } from "../session/index.js";
export interface TurnTally {
    readonly turn: number;
    readonly steps: number;
    readonly usage: Usage;
    readonly reason?: TurnEndReason;
}
/**
 * Sums what turn `turn` cost over `events` (every logged event, in order): the usage of its
 * assistant messages and of any compaction summary call made inside it, and the steps that
 * reached the provider (a step that ended before dispatch is not counted).
 */
export declare function tallyTurn(events: readonly SessionEvent[], turn: number): TurnTally;
/** Share of prompt tokens read from the cache (undefined when nothing was billed). */
export declare function cacheHitShare(usage: Usage): number | undefined;
/** One line: `── turn 2 · 3 steps · input 120 · cache read 3,400 · … · $0.00123 · completed`. */
export declare function formatFooter(tally: TurnTally, cost: number | undefined): string;
export declare function describeReason(reason: TurnEndReason): string;
