import type { TurnEndReason } from "../session/index.js";
import type { Agent } from "../loop/index.js";
import type { JsonlSessionStore } from "../store/index.js";
import type { ProviderHandle } from "./model-selection.js";
export declare const EXIT_CODES: Readonly<Record<TurnEndReason["kind"], number>>;
export declare const SYSTEM_PROMPT = "You are Keelson, a careful coding and operations agent working in {{cwd}}. Answer concisely.";
export interface HeadlessTurnInput {
    readonly agent: Agent;
    readonly store: JsonlSessionStore;
    readonly handle: ProviderHandle;
    readonly prompt: string;
    readonly json: boolean;
}
/** Runs the turn and returns the process exit code. */
export declare function runHeadlessTurn({ agent, store, handle, prompt, json }: HeadlessTurnInput): Promise<number>;
