import type { Message } from "../messages/index.js";
export interface PairingBalance {
    /** Call ids whose tool-call block has no result among the messages. */
    readonly unansweredCalls: readonly string[];
    /** Call ids whose result has no tool-call block among the messages. */
    readonly orphanResults: readonly string[];
}
/** Computes which calls and results in `messages` lack their partner within `messages`. */
export declare function toolPairingBalance(messages: readonly Message[]): PairingBalance;
/** True when every call in `messages` has its result there and every result its call. */
export declare function isPairingBalanced(messages: readonly Message[]): boolean;
