import type { AgentPlugin } from "../loop/index.js";
import { type InstructionFile } from "./instruction-files.js";
import { type WorkspaceInstructionsOptions } from "./types.js";
/** The instruction files for `cwd`, broadest first: `<home>`, then the project root down to `cwd`. */
export declare function collectInstructionFiles(cwd: string, home: string, maxFileBytes: number): Promise<{
    root: string;
    files: InstructionFile[];
}>;
export declare function workspaceInstructions(options?: WorkspaceInstructionsOptions): AgentPlugin;
