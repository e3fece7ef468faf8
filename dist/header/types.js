export class HeaderError extends Error {
    name = "HeaderError";
    code;
    /** Seq of the offending event, when the error came from a log. */
    seq;
    constructor(code, message, seq) {
        super(message);
        this.code = code;
        this.seq = seq;
    }
}
//# sourceMappingURL=types.js.map