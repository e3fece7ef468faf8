import { type HeaderWriter, type RequestConfig } from "../header/index.js";
import type { HookBus } from "../hooks/index.js";
import { type Provider } from "../llm/core.js";
import { type Message } from "../messages/index.js";
import { type PromptSections } from "../prompt/index.js";
import type { Session } from "../session/index.js";
import type { SessionPersistence } from "../store/index.js";
import { type ToolRegistry } from "../tools/index.js";
import type { Claim, Inbox } from "./inbox.js";
import { type RetryPolicy } from "./retry.js";
import { type Agent, type AgentHooks, type CompactionGate, type TurnOutcome } from "./types.js";
/** Why a turn's signal was aborted. */
export type AbortCause = {
    readonly kind: "cancel";
    readonly reason: string;
} | {
    readonly kind: "dispose";
};
/** Per-loop-instance state: a resume, fork or new process is a new instance. */
export interface InstanceState {
    prefix: readonly Message[] | undefined;
    readonly writer: HeaderWriter;
    requestsSent: number;
}
export interface TurnContext {
    readonly agent: Agent;
    readonly session: Session;
    readonly hooks: HookBus<AgentHooks>;
    readonly tools: ToolRegistry;
    readonly prompt: PromptSections;
    readonly provider: Provider;
    readonly initialConfig: RequestConfig;
    readonly promptVars: Readonly<Record<string, string>>;
    readonly instance: InstanceState;
    readonly inbox: Inbox;
    readonly maxSteps: number;
    readonly toolTimeoutMs: number | undefined;
    readonly invariants: boolean;
    readonly cwd: string | undefined;
    readonly persistence: SessionPersistence | undefined;
    /** True once the agent is disposed (wins over a cancel that aborted the signal first). */
    readonly isDisposed: () => boolean;
    readonly retry: RetryPolicy;
    readonly compaction: CompactionGate | undefined;
    readonly prefixOnResume: "recompose" | "reuse";
}
export declare function runTurn(ctx: TurnContext, claim: Claim, trigger: string, signal: AbortSignal): Promise<TurnOutcome>;
