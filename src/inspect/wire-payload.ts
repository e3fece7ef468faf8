// The exact provider payload an adapter would send for a reconstructed request — the same
// construction as `keelson requests --wire` (src/cli/wire-payload.ts): the request plus the live
// parts the log implies (session id, prefix length from the header's `messagePrefix`), built by
// the very function the adapter hands to its SDK. test/inspect pins byte equality with the CLI.
import { ANTHROPIC_DEFAULT_MAX_TOKENS, anthropicRequestBody, type ProviderRequest } from "../llm/index.js";
import { chatWireOptions, toChatCompletionsParams } from "../llm/openai/index.js";
import type { ReconstructedRequest } from "../reconstruct/index.js";

export type Wire = "anthropic" | "openai" | "deepseek";
export const WIRES: readonly Wire[] = ["anthropic", "openai", "deepseek"];

/** The body object the adapter of `wire` (default options) gives its SDK for this request. */
export function wirePayload(r: ReconstructedRequest, sessionId: string, wire: Wire): unknown {
  const prefixLength = r.header.messagePrefix?.length ?? 0;
  const request = {
    ...r.request,
    signal: new AbortController().signal,
    sessionId,
    ...(prefixLength > 0 ? { prefixLength } : {}),
  } as ProviderRequest;
  if (wire === "anthropic") return anthropicRequestBody(request, { defaultMaxTokens: ANTHROPIC_DEFAULT_MAX_TOKENS });
  return toChatCompletionsParams(request, chatWireOptions({ flavor: wire }));
}

/** The request body bytes on the wire: the SDKs' own serialization of `wirePayload`. */
export function wireBody(r: ReconstructedRequest, sessionId: string, wire: Wire): string {
  return JSON.stringify(wirePayload(r, sessionId, wire));
}
