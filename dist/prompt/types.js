import { KeelsonError } from "../errors/index.js";
export class PromptError extends KeelsonError {
}
//# sourceMappingURL=types.js.map