// The exact provider payload an adapter would send for a reconstructed request (what
// `keelson requests --wire` prints and the inspector shows): the request
// plus the live parts the log implies (session id, prefix length from the header's
// `messagePrefix`), built by the very function the adapter hands to its SDK
// (`anthropicRequestBody`, `responsesRequestBody` with the default `responsesWireOptions()`,
// `geminiRequestBody`, or `toChatCompletionsParams` with the flavor's `chatWireOptions`). The
// Anthropic and OpenAI SDKs send `JSON.stringify(body)` of the object they are given, and the
// Gemini SDK rebuilds exactly `geminiRequestBody`'s bytes from it, so `wireBody` is the request
// body byte for byte (Gemini's model is in its URL, not the body). Not exported by the
// reconstruct index: it loads the adapters' modules (not their SDKs), which the loop, importing
// reconstruct, does not need.
import {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  anthropicRequestBody,
  responsesRequestBody,
  responsesWireOptions,
} from "../llm/index.js";
import { geminiRequestBody } from "../llm/gemini/index.js";
import { chatWireOptions, toChatCompletionsParams } from "../llm/openai/index.js";
import type { ProviderRequest } from "../llm/index.js";
import type { ReconstructedRequest } from "./types.js";
import type { Wire } from "./wire-names.js";

export { type Wire, WIRES } from "./wire-names.js";

export function providerRequestOf(r: ReconstructedRequest, sessionId: string): ProviderRequest {
  const prefixLength = r.header.messagePrefix?.length ?? 0;
  return {
    ...r.request,
    signal: new AbortController().signal,
    sessionId,
    ...(prefixLength > 0 ? { prefixLength } : {}),
  } as ProviderRequest;
}

/** The body object the adapter of `wire` (default options) gives its SDK for this request. */
export function wirePayload(r: ReconstructedRequest, sessionId: string, wire: Wire): unknown {
  const request = providerRequestOf(r, sessionId);
  if (wire === "anthropic") return anthropicRequestBody(request, { defaultMaxTokens: ANTHROPIC_DEFAULT_MAX_TOKENS });
  if (wire === "gemini") return geminiRequestBody(request);
  if (wire === "responses") return responsesRequestBody(request, responsesWireOptions());
  return toChatCompletionsParams(request, chatWireOptions({ flavor: wire }));
}

/** The request body bytes on the wire: the SDKs' own serialization of `wirePayload`. */
export function wireBody(r: ReconstructedRequest, sessionId: string, wire: Wire): string {
  return JSON.stringify(wirePayload(r, sessionId, wire));
}
