import { Session, type SessionOptions } from "./session.js";
import type { SessionEvent } from "./types.js";
export interface ForkOptions extends SessionOptions {
    /** Seq of the `turn/end` to fork at (inclusive); defaults to the last `turn/end`. */
    readonly atSeq?: number;
    readonly id?: string;
    readonly createdAt?: number;
    readonly cwd?: string;
}
/**
 * The seed a fork at `atSeq` copies: the events `0..atSeq`. Throws `SessionError` with code
 * `fork-boundary-out-of-range`, `fork-boundary-not-turn-end` or `fork-no-completed-turn`.
 */
export declare function forkSeed(events: readonly SessionEvent[], atSeq?: number): readonly SessionEvent[];
/** A new session whose log is the parent's up to the boundary, with `parentSession` and `seedLength`. */
export declare function forkSession(parent: Session, options?: ForkOptions): Session;
