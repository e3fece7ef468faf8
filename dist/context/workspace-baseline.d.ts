import type { AgentPlugin } from "../loop/index.js";
import { type WorkspaceBaselineOptions } from "./types.js";
/** The baseline text for `cwd` (the reminder's body). */
export declare function describeWorkspace(cwd: string, options?: Omit<WorkspaceBaselineOptions, "cwd">): Promise<string>;
export declare function workspaceBaseline(options?: WorkspaceBaselineOptions): AgentPlugin;
