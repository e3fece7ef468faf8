import { KeelsonError } from "../errors/index.js";
export const WIRE_ERROR_STATUS = {
    "invalid-request": 400,
    authentication: 401,
    permission: 403,
    "not-found": 404,
    "too-large": 413,
    "rate-limit": 429,
    api: 500,
    unavailable: 503,
    overloaded: 529,
};
/** An HTTP-level failure the server answers with (a validation error, an injected fault, a scripted error). */
export class WireError extends KeelsonError {
    status;
    /** Extra response headers, e.g. `retry-after`. */
    headers;
    /** OpenAI `param` (e.g. `messages.[3].role`); ignored by the Anthropic wire. */
    param;
    constructor(kind, message, options = {}) {
        super(kind, message);
        this.status = options.status ?? WIRE_ERROR_STATUS[kind];
        this.headers = options.headers ?? {};
        this.param = options.param ?? null;
    }
}
//# sourceMappingURL=types.js.map