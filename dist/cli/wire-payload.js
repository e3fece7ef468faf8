// The exact provider payload an adapter would send for a reconstructed request: the request
// plus the live parts the log implies (session id, prefix length from the header's
// `messagePrefix`), serialized by the adapter's own pure wire mapping.
import { toAnthropicParams } from "../llm/index.js";
import { chatWireOptions, toChatCompletionsParams } from "../llm/openai/index.js";
/** `defaultMaxTokens` of AnthropicProvider when the request sets none. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;
export function providerRequestOf(r, sessionId) {
    const prefixLength = r.header.messagePrefix?.length ?? 0;
    return {
        ...r.request,
        signal: new AbortController().signal,
        sessionId,
        ...(prefixLength > 0 ? { prefixLength } : {}),
    };
}
export function wirePayload(r, sessionId, wire) {
    const request = providerRequestOf(r, sessionId);
    if (wire === "anthropic")
        return toAnthropicParams(request, { defaultMaxTokens: ANTHROPIC_DEFAULT_MAX_TOKENS });
    // The flavor's wire options, exactly as OpenAICompatibleProvider decides them.
    return toChatCompletionsParams(request, chatWireOptions({ flavor: wire }));
}
//# sourceMappingURL=wire-payload.js.map