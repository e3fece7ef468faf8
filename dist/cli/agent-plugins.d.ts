import type { AgentPlugin } from "../loop/index.js";
import type { MutatingToolName, PermissionPolicy } from "../builtin-tools/index.js";
/** Parses `--allow write,bash`; an unknown name is a CliError. */
export declare function parseAllow(text: string | undefined): MutatingToolName[];
/** Headless: mutating tools denied unless allowed. */
export declare function denyUnlessAllowed(allow: readonly MutatingToolName[]): PermissionPolicy;
export declare function cliPlugins(cwd: string, permissions: PermissionPolicy): Promise<AgentPlugin[]>;
