export class ProviderError extends Error {
    name = "ProviderError";
    code;
    retryable;
    /** From a `retry-after` header, when the provider sent one. */
    retryAfterMs;
    /** HTTP status, when there was one. */
    status;
    constructor(code, message, options = {}) {
        super(message, options.cause === undefined ? undefined : { cause: options.cause });
        this.code = code;
        this.retryable = options.retryable ?? false;
        this.retryAfterMs = options.retryAfterMs;
        this.status = options.status;
    }
}
//# sourceMappingURL=types.js.map