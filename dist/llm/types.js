import { KeelsonError } from "../errors/index.js";
export class ProviderError extends KeelsonError {
    retryable;
    /** From a `retry-after` header, when the provider sent one. */
    retryAfterMs;
    /** HTTP status, when there was one. */
    status;
    constructor(code, message, options = {}) {
        super(code, message, options);
        this.retryable = options.retryable ?? false;
        this.retryAfterMs = options.retryAfterMs;
        this.status = options.status;
    }
}
//# sourceMappingURL=types.js.map