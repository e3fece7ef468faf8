import type { Agent } from "../loop/index.js";
import { type ModelRegistry } from "../llm/index.js";
import { Spinner, type SpinnerOutput } from "./spinner.js";
export interface ChatViewOutput {
    write(text: string): unknown;
}
export declare class ChatView {
    #private;
    constructor(out: ChatViewOutput, spinnerOut: SpinnerOutput, models: ModelRegistry, spinner?: Spinner);
    /** Follows `agent`'s hooks; returns the function that stops following. */
    attach(agent: Agent): () => void;
    /** A line of chat output (a notice, a command's answer), starting on a fresh line. */
    line(text: string): void;
    /** Pauses the spinner (before asking the user something). */
    pause(): void;
    /** The footer of `turn`, from the log. */
    footer(agent: Agent, turn: number): void;
}
