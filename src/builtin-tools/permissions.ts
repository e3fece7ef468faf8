// The permission gate for mutating built-in tools, as a `tools/pre-execute` listener. Read-only
// tools and tools it does not gate pass straight through; `always` answers are remembered in the
// listener's closure, i.e. for the life of the agent that loaded it.
import type { JsonObject, JsonValue } from "../json/index.js";
import type { PreExecuteDecision, ToolInvocation } from "../tools/index.js";
import type { MutatingToolName, PermissionAnswer, PermissionPolicy } from "./types.js";
import { MUTATING_TOOL_NAMES } from "./types.js";

export type PreExecuteListener = (
  call: ToolInvocation,
  next: () => Promise<PreExecuteDecision>,
) => Promise<PreExecuteDecision>;

const SUMMARY_MAX = 200;

/**
 * A `tools/pre-execute` listener enforcing `policy` on the mutating tools named in `gated`
 * (default: write, edit, bash). A throwing `ask` denies, naming the failure.
 */
export function permissionGate(
  policy: PermissionPolicy,
  gated: ReadonlySet<string> = new Set(MUTATING_TOOL_NAMES),
): PreExecuteListener {
  const always = new Set<string>(policy.allow ?? []);
  return async (call, next) => {
    if (!gated.has(call.name) || policy.mode === "allow" || always.has(call.name)) return next();
    const tool = call.name as MutatingToolName;
    if (policy.mode === "deny")
      return deny(
        `${tool} is not permitted in this session (permission mode: deny). The user can allow it by running with --allow ${tool} (e.g. --allow write,edit,bash).`,
      );
    if (policy.ask === undefined)
      return deny(
        `${tool} needs the user's permission, and there is no way to ask in this session; run with --allow ${tool} to permit it.`,
      );
    let answer: PermissionAnswer;
    try {
      answer = await policy.ask({ tool, summary: summarize(tool, call.arguments) });
    } catch (error) {
      return deny(
        `asking the user for permission to run ${tool} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (answer === "always") always.add(tool);
    if (answer === "yes" || answer === "always") return next();
    return deny(`the user declined to let ${tool} run this time`);
  };
}

const deny = (reason: string): PreExecuteDecision => ({ action: "deny", reason });

/** One line for the person asked: the path for write/edit, the command for bash. */
export function summarize(tool: MutatingToolName, args: JsonValue | undefined): string {
  const field = (key: string): string | undefined => {
    const value =
      typeof args === "object" && args !== null && !Array.isArray(args) ? (args as JsonObject)[key] : undefined;
    return typeof value === "string" ? value : undefined;
  };
  let text: string;
  if (tool === "bash") text = `bash: ${field("command") ?? "(no command)"}`;
  else if (tool === "write")
    text = `write ${field("path") ?? "(no path)"} (${field("content")?.length ?? 0} characters)`;
  else text = `edit ${field("path") ?? "(no path)"}`;
  text = text.replace(/\s+/g, " ");
  return text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 1)}…` : text;
}
