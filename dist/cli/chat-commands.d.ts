import type { Agent } from "../loop/index.js";
export interface ChatContext {
    readonly agent: Agent;
    /** The session's log file. */
    fileOf(id: string): string;
    /** Prints lines of chat output. */
    say(text: string): void;
    /** Prints the footer (tokens, cache, cost) of `turn`. */
    footer(turn: number): void;
    /** Forks the current session at its last turn end and continues the chat in the child. */
    fork(): Promise<Agent>;
}
export interface SlashCommand {
    readonly name: string;
    readonly help: string;
    /** Returns "exit" to end the chat. */
    run(ctx: ChatContext, args: string): Promise<"exit" | undefined>;
}
export declare const SLASH_COMMANDS: readonly SlashCommand[];
/** Runs `/name args`; an unknown name prints the list. */
export declare function runSlashCommand(ctx: ChatContext, line: string): Promise<"exit" | undefined>;
