import { KeelsonError } from "../errors/index.js";
export class StoreError extends KeelsonError {
    /** The file concerned, when there is one. */
    file;
    /** 1-based line in `file`, when the problem is on a line. */
    line;
    constructor(code, message, where = {}) {
        super(code, message, where);
        this.file = where.file;
        this.line = where.line;
    }
}
//# sourceMappingURL=types.js.map