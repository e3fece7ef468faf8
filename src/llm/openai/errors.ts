// What the openai SDK throws → ProviderError, so the loop's retry policy sees one vocabulary:
// HTTP failures go through the shared `httpError`; connection failures, drops mid-stream and
// passed deadlines are retryable and name the base URL; an error event inside a 200 stream (no
// status) is classified by its message. Aborts are not failures: the SDK's abort error is
// returned as is, for the loop, which checks the signal, to see.
import type { APIError } from "openai";
import { describeFailure, httpError } from "../http-errors.js";
import { ProviderError } from "../types.js";

export interface FailureContext {
  /** The error of the attempt deadline that passed (the adapter aborted the request for it). */
  readonly deadline?: ProviderError | undefined;
  /** The caller's signal aborted. */
  readonly aborted: boolean;
  /** Where the request went, named in connection errors. */
  readonly baseURL?: string;
}

// undici: `TypeError: terminated` (cause `UND_ERR_SOCKET`) when the socket closes mid-body.
const CONNECTION_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** The error to throw for `error`: a ProviderError, or the abort error itself. */
export function toProviderError(
  error: unknown,
  { APIConnectionError, APIError, APIUserAbortError }: typeof import("openai"),
  context: FailureContext,
): unknown {
  if (error instanceof ProviderError) return error;
  if (context.deadline !== undefined) return context.deadline;
  if (context.aborted || error instanceof APIUserAbortError) return error;
  const at = context.baseURL === undefined ? "" : ` at ${context.baseURL}`;
  if (error instanceof APIConnectionError) {
    return new ProviderError("connection", `could not reach the provider${at}: ${describeFailure(error)}`, {
      retryable: true,
      cause: error,
    });
  }
  if (error instanceof APIError)
    return error.status === undefined
      ? streamError(error)
      : httpError(error.status, apiMessage(error), error.headers, error);
  if (error instanceof SyntaxError)
    return new ProviderError("protocol", `the provider sent a stream event that is not JSON: ${error.message}`, {
      retryable: true, // garbled in transit: retried (nothing of the attempt reaches the log)
      cause: error,
    });
  if (isConnectionFailure(error)) {
    return new ProviderError(
      "connection",
      `the connection${at} dropped before the stream completed: ${describeFailure(error)}`,
      {
        retryable: true,
        cause: error,
      },
    );
  }
  return new ProviderError("provider-error", `the OpenAI-compatible request${at} failed: ${describeFailure(error)}`, {
    cause: error,
  });
}

/** An `{"error": …}` event inside a 200 stream: the provider gave up mid-answer, usually transiently. */
function streamError(error: APIError): ProviderError {
  const message = apiMessage(error);
  if (/overloaded/i.test(message)) return httpError(undefined, message, undefined, error);
  if (/rate.?limit|too many requests/i.test(message))
    return new ProviderError("rate-limited", `rate limited mid-stream: ${message}`, { retryable: true, cause: error });
  return new ProviderError("server-error", `the provider failed mid-stream: ${message}`, {
    retryable: true,
    cause: error,
  });
}

/** The provider's own message (the SDK prefixes the status), with its error code when it sent one. */
function apiMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  const message = typeof body?.message === "string" ? body.message : error.message;
  return typeof error.code === "string" && !message.includes(error.code) ? `${message} (${error.code})` : message;
}

function isConnectionFailure(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
    if (
      e.message === "terminated" ||
      e.message === "fetch failed" ||
      /socket hang up|other side closed/i.test(e.message)
    )
      return true;
  }
  return false;
}
