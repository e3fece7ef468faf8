import type { UserContent } from "../messages/index.js";
import type { TurnOutcome } from "./types.js";
export interface QueuedPrompt {
    readonly content: readonly UserContent[];
    readonly source: string;
    readonly settle: Settle<TurnOutcome>;
}
export interface QueuedSteer {
    readonly content: readonly UserContent[];
    readonly settle: Settle<TurnOutcome>;
}
export interface QueuedInject {
    readonly content: readonly UserContent[];
    readonly settle: Settle<void>;
}
export interface QueuedCompact {
    readonly settle: Settle<TurnOutcome>;
}
export interface Settle<T> {
    resolve(value: T): void;
    reject(error: unknown): void;
}
/** What a turn claims when it starts. */
export interface Claim {
    readonly prompts: readonly QueuedPrompt[];
    readonly steers: readonly QueuedSteer[];
    readonly injects: readonly QueuedInject[];
    readonly compacts: readonly QueuedCompact[];
}
export declare class Inbox {
    #private;
    get empty(): boolean;
    get hasSteers(): boolean;
    prompt(item: QueuedPrompt): void;
    steer(item: QueuedSteer): void;
    inject(item: QueuedInject): void;
    compact(item: QueuedCompact): void;
    /** Everything queued, for a new turn. */
    claimAll(): Claim;
    /** Steers and injects that arrived while the turn ran, for its next boundary. */
    takeBoundary(): {
        steers: QueuedSteer[];
        injects: QueuedInject[];
    };
    /** Injects only (at turn end, when no further boundary comes). */
    takeInjects(): QueuedInject[];
    /** Empties the inbox, rejecting everything (dispose). */
    rejectAll(error: unknown): void;
}
