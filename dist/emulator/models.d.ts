import type { ScriptedReply } from "../llm/index.js";
import type { EmulatorModel, EmulatorModelFunction, EmulatorModelOption, EmulatorRequest } from "./types.js";
import { KeelsonError } from "../errors/index.js";
export type EmulatorStep = ScriptedReply | EmulatorModelFunction;
export declare class EmulatorModelError extends KeelsonError<"script-exhausted"> {
}
export declare class ScriptedEmulatorModel implements EmulatorModel {
    #private;
    /** Every request answered (or refused), in arrival order. */
    readonly requests: EmulatorRequest[];
    constructor(script?: readonly EmulatorStep[], options?: {
        fallback?: EmulatorStep;
    });
    /** Appends steps to the shared `default` queue, used by any session without its own steps. */
    push(...steps: EmulatorStep[]): this;
    /** Appends steps for one session key (Anthropic `metadata.user_id`, OpenAI `prompt_cache_key`/`user`). */
    pushFor(sessionKey: string, ...steps: EmulatorStep[]): this;
    /** Steps left for a session key (default: the shared queue). */
    remaining(sessionKey?: string): number;
    reply(request: EmulatorRequest): Promise<ScriptedReply>;
}
export declare class RuleBasedModel implements EmulatorModel {
    reply(request: EmulatorRequest): ScriptedReply;
}
/** The model a server or provider option names. */
export declare function resolveModel(option: EmulatorModelOption | undefined): EmulatorModel;
