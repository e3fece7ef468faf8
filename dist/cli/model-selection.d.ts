import type { Provider } from "../llm/index.js";
export declare const PROVIDERS: readonly ["anthropic", "openai", "deepseek", "emulator"];
export type ProviderName = (typeof PROVIDERS)[number];
export interface ModelChoice {
    readonly provider: ProviderName;
    /** The full `provider:model` selector the agent logs. */
    readonly model: string;
    /** True when nothing chose the model: no flag, no env, no key (the emulator fallback). */
    readonly implicit: boolean;
}
/** Parses `provider:model`; throws a CliError naming the bad selector. */
export declare function parseModel(selector: string): {
    provider: ProviderName;
    model: string;
};
export declare function chooseModel(flag: string | undefined, env?: NodeJS.ProcessEnv): ModelChoice;
export interface ProviderHandle {
    readonly provider: Provider;
    /** Stops an in-process emulator, when one was started. */
    close(): Promise<void>;
}
/** The API key an explicit provider needs; a CliError naming the variable when it is missing. */
export declare function requireKey(choice: ModelChoice, env?: NodeJS.ProcessEnv): string | undefined;
/** Builds the provider for a choice; checks keys up front so nothing is written on failure. */
export declare function openProvider(choice: ModelChoice, env?: NodeJS.ProcessEnv, notice?: (line: string) => void): Promise<ProviderHandle>;
