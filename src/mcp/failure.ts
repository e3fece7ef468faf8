// What an SDK failure means for a person: an HTTP 401 or an OAuth refusal is `unauthorized`
// (with the way out: `keelson mcp login <server>`), a 403 that scope step-up could not cure is
// `forbidden`; anything else keeps the caller's code. The SDK's own text (a raw "Streamable HTTP
// error: Error POSTing to endpoint: …") is reduced to its status and the server's short reason.
import { errorMessage } from "../errors/index.js";
import type { McpErrorCode } from "./types.js";

/** How many authorization rounds one operation may go through (then it fails). */
export const MAX_AUTH_ROUNDS = 3;

/** `unauthorized` / `forbidden` when `cause` is an authorization failure, else undefined. */
export function authFailureCode(cause: unknown): McpErrorCode | undefined {
  if (typeof cause !== "object" || cause === null) return undefined;
  const { code, errorCode } = cause as { code?: unknown; errorCode?: unknown };
  // The SDK's UnauthorizedError keeps the name "Error"; its class name tells it apart.
  if (cause.constructor?.name === "UnauthorizedError" || code === 401) return "unauthorized";
  if (code === 403) return "forbidden";
  // The SDK's OAuth errors (invalid_grant, invalid_client, …) carry the RFC 6749 error code.
  if (typeof errorCode === "string" && /^(invalid_|unauthorized_client|access_denied|server_error)/.test(errorCode))
    return "unauthorized";
  return undefined;
}

/** The text of an authorization failure, for a message that already names the server. */
export function authFailureText(code: McpErrorCode, cause: unknown, server: string): string {
  const reason = shortReason(cause);
  return code === "forbidden"
    ? `refused the request (403 Forbidden${reason}) — the authorization lacks a scope it needs, and asking for it again did not help`
    : `needs authorization (401 Unauthorized${reason}): run \`keelson mcp login ${server}\`, or give the library an \`auth\` option`;
}

function shortReason(cause: unknown): string {
  const text = errorMessage(cause)
    .replace(/^Streamable HTTP error: /, "")
    .replace(/^Error POSTing to endpoint: ?/, "")
    .replace(/^Unauthorized$/, "")
    .trim();
  if (text === "") return "";
  const line = text.split("\n")[0]!.replace(/\p{Cc}/gu, " ");
  return `: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`;
}
