export class CompactionError extends Error {
    name = "CompactionError";
    code;
    constructor(code, message) {
        super(message);
        this.code = code;
    }
}
//# sourceMappingURL=types.js.map