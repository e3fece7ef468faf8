import type { AnySessionEvent, SessionEvent } from "./types.js";
export interface OpenCall {
    readonly callId: string;
    readonly name: string;
    readonly arguments: string;
    readonly turn: number;
    readonly step: number;
    /** Position among all tool-call blocks of the session: model order. */
    readonly order: number;
}
export declare class LogStructure {
    #private;
    /** Highest turn number started so far (0 before the first turn). */
    lastTurn: number;
    openTurn: number | null;
    /** Highest step number started in the open turn. */
    lastStep: number;
    openStep: number | null;
    /** Tool-call blocks of the open step's assistant messages not yet logged as `tool/call`. */
    readonly unloggedCalls: Map<string, OpenCall>;
    /** Logged `tool/call`s that have no `tool/result` yet. */
    readonly unansweredCalls: Map<string, OpenCall>;
    readonly seenCallIds: Set<string>;
    compactionOpen: boolean;
    /** Throws `SessionError('structure')` if `event` may not come next. Never mutates. */
    check(event: AnySessionEvent): void;
    /** Applies an event that `check` accepted. */
    commit(event: AnySessionEvent): void;
    /** `check` then `commit`. */
    accept(event: SessionEvent): void;
}
