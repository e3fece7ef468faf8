import type { Command } from "commander";
export interface TurnFlags {
    readonly model?: string;
    readonly json?: boolean;
    readonly cwd?: string;
    readonly allow?: string;
}
export declare function registerRun(program: Command): void;
/** Resolves `--cwd`; a missing or non-directory path is a CliError. */
export declare function workingDirectory(dir: string | undefined): Promise<string>;
