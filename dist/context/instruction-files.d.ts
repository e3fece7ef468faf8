export declare const INSTRUCTION_FILE_NAMES: readonly ["AGENTS.md", "CLAUDE.md"];
export type InstructionFile = {
    readonly path: string;
    readonly status: "ok";
    readonly content: string;
} | {
    readonly path: string;
    readonly status: "symlink" | "not-a-file" | "too-large" | "unreadable";
    readonly detail: string;
};
/** True for a path whose last component is an instruction file name. */
export declare function isInstructionFileName(path: string): boolean;
/** The instruction file of `dir`, or undefined when it has neither name. */
export declare function readInstructionFile(dir: string, maxFileBytes: number): Promise<InstructionFile | undefined>;
