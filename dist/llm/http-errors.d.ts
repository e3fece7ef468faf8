import { ProviderError } from "./types.js";
/** Parses `retry-after` (seconds or an HTTP date) and `retry-after-ms` into milliseconds. */
export declare function retryAfterMs(headers: {
    get(name: string): string | null;
} | undefined, now?: number): number | undefined;
/** The ProviderError for an HTTP failure. `message` is the provider's own text when it gave one. */
export declare function httpError(status: number | undefined, message: string, headers?: {
    get(name: string): string | null;
}, cause?: unknown): ProviderError;
