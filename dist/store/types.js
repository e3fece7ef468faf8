export class StoreError extends Error {
    name = "StoreError";
    code;
    /** The file concerned, when there is one. */
    file;
    /** 1-based line in `file`, when the problem is on a line. */
    line;
    constructor(code, message, where = {}) {
        super(message, where.cause === undefined ? undefined : { cause: where.cause });
        this.code = code;
        this.file = where.file;
        this.line = where.line;
    }
}
//# sourceMappingURL=types.js.map