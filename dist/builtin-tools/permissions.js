import { MUTATING_TOOL_NAMES } from "./types.js";
const SUMMARY_MAX = 200;
/**
 * A `tools/pre-execute` listener enforcing `policy` on the mutating tools named in `gated`
 * (default: write, edit, bash). A throwing `ask` denies, naming the failure.
 */
export function permissionGate(policy, gated = new Set(MUTATING_TOOL_NAMES)) {
    const always = new Set(policy.allow ?? []);
    return async (call, next) => {
        if (!gated.has(call.name) || policy.mode === "allow" || always.has(call.name))
            return next();
        const tool = call.name;
        if (policy.mode === "deny")
            return deny(`${tool} is not permitted in this session (permission mode: deny). The user can allow it by running with --allow ${tool} (e.g. --allow write,edit,bash).`);
        if (policy.ask === undefined)
            return deny(`${tool} needs the user's permission, and there is no way to ask in this session; run with --allow ${tool} to permit it.`);
        let answer;
        try {
            answer = await policy.ask({ tool, summary: summarize(tool, call.arguments) });
        }
        catch (error) {
            return deny(`asking the user for permission to run ${tool} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
        if (answer === "always")
            always.add(tool);
        if (answer === "yes" || answer === "always")
            return next();
        return deny(`the user declined to let ${tool} run this time`);
    };
}
const deny = (reason) => ({ action: "deny", reason });
/** One line for the person asked: the path for write/edit, the command for bash. */
export function summarize(tool, args) {
    const field = (key) => {
        const value = typeof args === "object" && args !== null && !Array.isArray(args) ? args[key] : undefined;
        return typeof value === "string" ? value : undefined;
    };
    let text;
    if (tool === "bash")
        text = `bash: ${field("command") ?? "(no command)"}`;
    else if (tool === "write")
        text = `write ${field("path") ?? "(no path)"} (${field("content")?.length ?? 0} characters)`;
    else
        text = `edit ${field("path") ?? "(no path)"}`;
    text = text.replace(/\s+/g, " ");
    return text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 1)}…` : text;
}
//# sourceMappingURL=permissions.js.map