import type { Message } from "../messages/index.js";
import type { SessionEvent, SurfaceOp } from "./types.js";
export interface SurfaceNode {
    readonly seq: number;
    readonly message: Message;
}
export declare class Surface {
    #private;
    get length(): number;
    /** Bumped by every replace; appends leave it unchanged. */
    get generation(): number;
    get nodes(): readonly SurfaceNode[];
    /**
     * Validates a surface op for an event about to be logged and returns the provenance a
     * replace must carry (the seqs it shadows). Never mutates.
     */
    plan(event: SessionEvent, op: SurfaceOp): readonly number[] | undefined;
    /** Applies an event whose op `plan` accepted. */
    commit(event: SessionEvent, op: SurfaceOp): void;
}
