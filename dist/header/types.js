// The request header: everything about a request except its derived history (ARCHITECTURE.md §3).
import { KeelsonError } from "../errors/index.js";
export class HeaderError extends KeelsonError {
    /** Seq of the offending event, when the error came from a log. */
    seq;
    constructor(code, message, seq) {
        super(code, message);
        this.seq = seq;
    }
}
//# sourceMappingURL=types.js.map