// Classifying a failed HTTP exchange (status, body text, headers) into a ProviderError. Shared
// by the adapters, so "is this retryable, and after how long" has one answer.
import { ProviderError } from "./types.js";

const CONTEXT_OVERFLOW =
  /prompt is too long|context length|context window|maximum context|too many tokens|context_length_exceeded/i;

/** Parses `retry-after` (seconds or an HTTP date) and `retry-after-ms` into milliseconds. */
export function retryAfterMs(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  const ms = headers?.get("retry-after-ms");
  if (ms != null && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers?.get("retry-after");
  if (value == null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The ProviderError for an HTTP failure. `message` is the provider's own text when it gave one. */
export function httpError(
  status: number | undefined,
  message: string,
  headers?: { get(name: string): string | null },
  cause?: unknown,
): ProviderError {
  const after = retryAfterMs(headers);
  const base = {
    ...(status === undefined ? {} : { status }),
    ...(after === undefined ? {} : { retryAfterMs: after }),
    cause,
  };
  if (status === 429)
    return new ProviderError("rate-limited", `rate limited (429): ${message}`, { ...base, retryable: true });
  if (status === 529 || /overloaded/i.test(message))
    return new ProviderError("overloaded", `provider overloaded${status ? ` (${status})` : ""}: ${message}`, {
      ...base,
      retryable: true,
    });
  if (status !== undefined && status >= 500)
    return new ProviderError("server-error", `provider error (${status}): ${message}`, { ...base, retryable: true });
  if (status === 401 || status === 403)
    return new ProviderError("auth", `authentication failed (${status}): ${message}`, base);
  if (CONTEXT_OVERFLOW.test(message))
    return new ProviderError("context-overflow", `the request does not fit the model's context: ${message}`, base);
  if (status !== undefined && status >= 400)
    return new ProviderError("invalid-request", `invalid request (${status}): ${message}`, base);
  return new ProviderError("provider-error", message, base);
}

/**
 * An error's message with its root cause, e.g. `Connection error. (connect ECONNREFUSED
 * 127.0.0.1:9)`: SDKs wrap transport failures in generic messages, and the innermost cause is
 * the one that says what happened.
 */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let root: unknown = error.cause;
  for (let depth = 0; root instanceof Error && root.cause instanceof Error && depth < 5; depth++) root = root.cause;
  return root instanceof Error && root.message !== "" && root.message !== error.message
    ? `${error.message} (${root.message})`
    : error.message;
}
