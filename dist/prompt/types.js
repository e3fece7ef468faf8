export class PromptError extends Error {
    name = "PromptError";
    code;
    constructor(code, message) {
        super(message);
        this.code = code;
    }
}
//# sourceMappingURL=types.js.map