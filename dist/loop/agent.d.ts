import { Session } from "../session/index.js";
import { type Agent, type AgentOptions } from "./types.js";
/** How the agent's session came to be: a new one (store file still to create) or an opened one. */
export interface AgentOrigin {
    readonly session: Session;
    /** True when the store already holds this session open for writing (resume, fork). */
    readonly storeOpen: boolean;
}
/** A new agent over a new session. */
export declare function createAgent(options: AgentOptions): Agent;
/** An agent (a new loop instance) over an existing session. */
export declare function agentOver(options: AgentOptions, origin: AgentOrigin): Agent;
