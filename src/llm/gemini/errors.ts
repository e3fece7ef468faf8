// What the `@google/genai` SDK throws → ProviderError, in the vocabulary the other adapters use.
// The SDK's `ApiError` carries the status and, as its message, the JSON error body
// (`{"error":{"code":429,"message":…,"status":"RESOURCE_EXHAUSTED","details":[…]}}`), for HTTP
// failures and for an error event inside a 200 stream alike; a `RetryInfo` detail's `retryDelay`
// ("32s") is the retry-after. Gemini answers a bad key with 400 `API_KEY_INVALID` (→ `auth`) and an
// oversized prompt with 400 "input token count … exceeds the maximum" (→ `context-overflow`). A
// explicit context cache that is gone (expired, deleted, never made) is 403 PERMISSION_DENIED
// "CachedContent not found (or permission denied)" (→ `cache-missing`, not retried as such: the
// context-cache plugin recreates the cache, logs the new name and sends again). A
// stream event that is not JSON is a retryable `protocol` error; a dropped socket or a body cut
// mid-event a retryable `connection` error naming the base URL. Aborts are not failures.
import { describeFailure, httpError } from "../http-errors.js";
import { ProviderError } from "../types.js";

export interface GeminiFailureContext {
  /** The error of the attempt deadline that passed (the adapter aborted the request for it). */
  readonly deadline?: ProviderError | undefined;
  /** The caller's signal aborted. */
  readonly aborted: boolean;
  /** Where the request went, named in connection errors. */
  readonly baseURL?: string;
}

interface GeminiErrorBody {
  readonly code?: number;
  readonly message?: string;
  readonly status?: string;
  readonly details?: readonly { readonly "@type"?: string; readonly retryDelay?: string; readonly reason?: string }[];
}

const CONNECTION =
  /terminated|ECONNRESET|ECONNREFUSED|socket hang up|other side closed|fetch failed|Incomplete JSON segment/i;

/** The error to throw for `error`: a ProviderError, or the abort error itself. */
export function toGeminiError(error: unknown, context: GeminiFailureContext): unknown {
  if (error instanceof ProviderError) return error;
  if (context.deadline !== undefined) return context.deadline;
  if (context.aborted || (error instanceof Error && error.name === "AbortError")) return error;
  const at = context.baseURL === undefined ? "" : ` at ${context.baseURL}`;
  if (isApiError(error)) return apiError(error);
  if (error instanceof SyntaxError || (error instanceof Error && /exception parsing stream chunk/.test(error.message)))
    return new ProviderError("protocol", `Gemini sent a stream event that is not JSON: ${error.message}`, {
      retryable: true, // garbled in transit: retried (nothing of the attempt reaches the log)
      cause: error,
    });
  if (error instanceof Error && (CONNECTION.test(error.message) || CONNECTION.test(describeFailure(error))))
    return new ProviderError("connection", `the connection to Gemini${at} dropped: ${describeFailure(error)}`, {
      retryable: true,
      cause: error,
    });
  return new ProviderError("provider-error", `the Gemini request${at} failed: ${describeFailure(error)}`, {
    cause: error,
  });
}

function isApiError(error: unknown): error is Error & { status: number } {
  return (
    error instanceof Error && error.name === "ApiError" && typeof (error as { status?: unknown }).status === "number"
  );
}

function apiError(error: Error & { status: number }): ProviderError {
  const body = parseBody(error.message);
  const message = body?.message ?? error.message;
  const delay = body?.details?.find((d) => typeof d.retryDelay === "string")?.retryDelay;
  const seconds = delay === undefined ? undefined : Number.parseFloat(delay);
  const headers =
    seconds === undefined || !Number.isFinite(seconds)
      ? undefined
      : { get: (name: string) => (name === "retry-after-ms" ? String(Math.round(seconds * 1000)) : null) };
  const reason = body?.details?.map((d) => d.reason ?? "").join(" ") ?? "";
  if (error.status === 400 && /API_KEY_INVALID|API key not valid/i.test(`${message} ${reason}`))
    return new ProviderError("auth", `authentication failed (400): ${message}`, { status: 400, cause: error });
  if ((error.status === 403 || error.status === 404) && /CachedContent not found/i.test(message))
    return new ProviderError("cache-missing", `the Gemini context cache is gone: ${message}`, {
      status: error.status,
      cause: error,
    });
  if (error.status === 400 && /input token count.*exceeds the maximum/i.test(message))
    return new ProviderError("context-overflow", `the request does not fit the model's context: ${message}`, {
      status: 400,
      cause: error,
    });
  return httpError(error.status, message, headers, error);
}

/** The `error` object of the JSON body the SDK put in the message (it may follow a "got status: …" prefix). */
function parseBody(text: string): GeminiErrorBody | undefined {
  const start = text.indexOf("{");
  if (start < 0) return undefined;
  try {
    const value = JSON.parse(text.slice(start)) as { error?: GeminiErrorBody };
    return typeof value.error === "object" && value.error !== null ? value.error : undefined;
  } catch {
    return undefined;
  }
}
