import type { Interface } from "node:readline";
export interface ChatInputOutput {
    write(text: string): unknown;
}
export declare class ChatInput {
    #private;
    constructor(rl: Interface, out: ChatInputOutput, interactive: boolean);
    get closed(): boolean;
    /** The next line, after showing `prompt`; undefined at end of input or when interrupted. */
    next(prompt: string): Promise<string | undefined>;
    /** Ends a pending `next` with undefined (Ctrl-C while asking); later lines are read normally. */
    interrupt(): void;
    /** Stops reading: pending and later `next` calls get undefined once the buffer is drained. */
    close(): void;
}
