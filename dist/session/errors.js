// The session layer's one error class. Callers branch on `code`; people read the message.
export class SessionError extends Error {
    name = "SessionError";
    code;
    /** The seq (or index) of the offending event, when there is one. */
    seq;
    constructor(code, message, seq, options) {
        super(message, options);
        this.code = code;
        this.seq = seq;
    }
}
//# sourceMappingURL=errors.js.map