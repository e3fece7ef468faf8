export class ToolError extends Error {
    name = "ToolError";
    code;
    constructor(code, message) {
        super(message);
        this.code = code;
    }
}
//# sourceMappingURL=types.js.map