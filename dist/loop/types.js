export class LoopError extends Error {
    name = "LoopError";
    code;
    constructor(code, message, options) {
        super(message, options);
        this.code = code;
    }
}
//# sourceMappingURL=types.js.map