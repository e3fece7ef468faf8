export class ReconstructError extends Error {
    name = "ReconstructError";
    code;
    seq;
    constructor(code, message, seq) {
        super(message);
        this.code = code;
        this.seq = seq;
    }
}
//# sourceMappingURL=types.js.map