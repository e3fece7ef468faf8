import { KeelsonError } from "../errors/index.js";
export class LoopError extends KeelsonError {
}
//# sourceMappingURL=types.js.map