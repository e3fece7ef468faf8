import { KeelsonError } from "../errors/index.js";
export class ReconstructError extends KeelsonError {
    seq;
    constructor(code, message, seq) {
        super(code, message);
        this.seq = seq;
    }
}
//# sourceMappingURL=types.js.map