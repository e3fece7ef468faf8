import type { JsonValue } from "../json/index.js";
import type { PreExecuteDecision, ToolInvocation } from "../tools/index.js";
import type { MutatingToolName, PermissionPolicy } from "./types.js";
export type PreExecuteListener = (call: ToolInvocation, next: () => Promise<PreExecuteDecision>) => Promise<PreExecuteDecision>;
/**
 * A `tools/pre-execute` listener enforcing `policy` on the mutating tools named in `gated`
 * (default: write, edit, bash). A throwing `ask` denies, naming the failure.
 */
export declare function permissionGate(policy: PermissionPolicy, gated?: ReadonlySet<string>): PreExecuteListener;
/** One line for the person asked: the path for write/edit, the command for bash. */
export declare function summarize(tool: MutatingToolName, args: JsonValue | undefined): string;
