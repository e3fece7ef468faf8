// The providers' JSON error shapes, and the mapping from a scripted failure to an HTTP error.
// Anthropic: {"type":"error","error":{"type":"overloaded_error","message":…},"request_id":…}.
// OpenAI: {"error":{"message":…,"type":…,"param":…,"code":…}}.
import type { JsonObject } from "../json/index.js";
import type { ProviderFailure } from "../llm/index.js";
import { WireError, type WireErrorKind } from "./types.js";

const ANTHROPIC_TYPES: { readonly [K in WireErrorKind]: string } = {
  "invalid-request": "invalid_request_error",
  authentication: "authentication_error",
  permission: "permission_error",
  "not-found": "not_found_error",
  "too-large": "request_too_large",
  "rate-limit": "rate_limit_error",
  api: "api_error",
  unavailable: "api_error",
  overloaded: "overloaded_error",
};

const OPENAI_TYPES: { readonly [K in WireErrorKind]: readonly [type: string, code: string | null] } = {
  "invalid-request": ["invalid_request_error", null],
  authentication: ["invalid_request_error", "invalid_api_key"],
  permission: ["invalid_request_error", "unsupported_country_region_territory"],
  "not-found": ["invalid_request_error", "unknown_url"],
  "too-large": ["invalid_request_error", null],
  "rate-limit": ["requests", "rate_limit_exceeded"],
  api: ["server_error", null],
  unavailable: ["server_error", null],
  overloaded: ["server_error", null],
};

/** The Anthropic error object, as both the HTTP body and the in-stream `error` event carry it. */
export function anthropicErrorBody(kind: WireErrorKind, message: string, requestId?: string): JsonObject {
  const body = { type: "error", error: { type: ANTHROPIC_TYPES[kind], message } };
  return requestId === undefined ? body : { ...body, request_id: requestId };
}

export function openaiErrorBody(
  kind: WireErrorKind,
  message: string,
  param: string | null = null,
  code?: string,
): JsonObject {
  const [type, kindCode] = OPENAI_TYPES[kind];
  return { error: { message, type, param, code: code ?? kindCode } };
}

const GEMINI_STATUS: { readonly [K in WireErrorKind]: string } = {
  "invalid-request": "INVALID_ARGUMENT",
  authentication: "UNAUTHENTICATED",
  permission: "PERMISSION_DENIED",
  "not-found": "NOT_FOUND",
  "too-large": "INVALID_ARGUMENT",
  "rate-limit": "RESOURCE_EXHAUSTED",
  api: "INTERNAL",
  unavailable: "UNAVAILABLE",
  overloaded: "UNAVAILABLE",
};

/**
 * The Gemini (Google API) error object: `{"error":{"code":429,"message":…,"status":…}}`, for the
 * HTTP body and an in-stream error event alike. A `retry-after` becomes a RetryInfo detail, where
 * Gemini puts its retry delay.
 */
export function geminiErrorBody(
  kind: WireErrorKind,
  message: string,
  status: number,
  headers: Readonly<Record<string, string>> = {},
): JsonObject {
  const after = headers["retry-after"];
  return {
    error: {
      code: status,
      message,
      status: GEMINI_STATUS[kind],
      ...(after === undefined
        ? {}
        : { details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${after}s` }] }),
    },
  };
}

/** The HTTP error a scripted `{ error }` reply stands for. */
export function failureToWireError(failure: ProviderFailure): WireError {
  switch (failure.code) {
    case "rate-limited":
      return new WireError("rate-limit", failure.message, { headers: { "retry-after": "1" } });
    case "overloaded":
      return new WireError("overloaded", failure.message);
    case "auth":
      return new WireError("authentication", failure.message);
    case "invalid-request":
      return new WireError("invalid-request", failure.message);
    case "context-overflow":
      return new WireError(
        "invalid-request",
        /too long|context/i.test(failure.message) ? failure.message : `prompt is too long: ${failure.message}`,
      );
    default:
      return new WireError(failure.retryable === false ? "invalid-request" : "api", failure.message);
  }
}
