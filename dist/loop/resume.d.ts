import type { SessionStore } from "../store/index.js";
import type { Agent, AgentOptions } from "./types.js";
/** Loads `sessionId` writable (crash-repairing it durably) and returns an agent over it. */
export declare function resumeAgent(store: SessionStore, sessionId: string, options: Omit<AgentOptions, "store" | "sessionId">): Promise<Agent>;
export interface ForkAgentOptions extends Omit<AgentOptions, "store"> {
    /** The parent's `turn/end` to fork at (inclusive); default its last. */
    readonly atSeq?: number;
}
/** Creates a child session of `sessionId` at a `turn/end` boundary, stores it, and returns an agent over it. */
export declare function forkAgent(store: SessionStore, sessionId: string, options: ForkAgentOptions): Promise<Agent>;
