import { KeelsonError } from "../errors/index.js";
export class CompactionError extends KeelsonError {
}
//# sourceMappingURL=types.js.map