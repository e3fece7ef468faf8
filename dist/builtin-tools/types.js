import { KeelsonError } from "../errors/index.js";
export const BUILTIN_TOOL_NAMES = Object.freeze([
    "read",
    "ls",
    "glob",
    "grep",
    "write",
    "edit",
    "bash",
]);
export const MUTATING_TOOL_NAMES = Object.freeze(["write", "edit", "bash"]);
/**
 * A failure the model should read and act on (a path outside the workspace, an ambiguous edit).
 * Built-in tools throw it internally; their wrapper turns it into an `isError` result whose text is
 * the message and whose `meta.code` is the code — it never reaches the pipeline as a throw.
 */
export class ToolFailure extends KeelsonError {
}
//# sourceMappingURL=types.js.map