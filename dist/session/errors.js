// The session layer's one error class. Callers branch on `code`; people read the message.
import { KeelsonError } from "../errors/index.js";
export class SessionError extends KeelsonError {
    /** The seq (or index) of the offending event, when there is one. */
    seq;
    constructor(code, message, seq, options) {
        super(code, message, options);
        this.seq = seq;
    }
}
//# sourceMappingURL=errors.js.map