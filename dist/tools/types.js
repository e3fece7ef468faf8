import { KeelsonError } from "../errors/index.js";
/**
 * A refused tool definition (`invalid-tool`, `duplicate-tool`), schemas asked for before they are
 * ready (`not-ready`), a hook's unknown decision, or a call's timeout (the abort reason).
 */
export class ToolError extends KeelsonError {
}
//# sourceMappingURL=types.js.map