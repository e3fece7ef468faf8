// Vocabulary of the json layer: the lossless-JSON value model and its error type.
import { KeelsonError } from "../errors/index.js";
/**
 * Deepest nesting of arrays and objects a lossless-JSON value may have. Every recursive consumer
 * (canonical serialization, JSON.stringify, deep freeze, equality) then stays far inside the
 * call stack; a deeper value (only ever hostile input: JSON.parse itself takes any depth) is a
 * JsonError, not a stack overflow.
 */
export const MAX_JSON_DEPTH = 512;
/** A value is not lossless JSON. `path` names where, e.g. `$.content[2].text`. */
export class JsonError extends KeelsonError {
    path;
    constructor(code, path, message) {
        super(code, `${message} at ${path}`);
        this.path = path;
    }
}
//# sourceMappingURL=types.js.map