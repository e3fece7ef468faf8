// Refusing a request that cannot fit the model's context window, before it is sent: a runaway
// prompt (say, after a failed compaction) would otherwise go out whole, cost its input tokens
// and come back as the provider's own context error. The estimate is cheap (bytes/4 by
// default) and deliberately conservative: it counts only what every wire sends (system, tool
// definitions, message text, tool calls and results; not reasoning, which some wires drop, nor
// images, whose cost depends on the provider), and a request is refused only when that
// estimate exceeds the window by a clear margin. Borderline requests go out; the provider
// still rejects a real overflow as a final `context-overflow`.
import type { Message } from "../messages/index.js";
import type { ModelRegistry } from "./models.js";
import { estimateTokens, type TokenCounter } from "./token-estimate.js";
import { type ModelRequest, ProviderError } from "./types.js";

/**
 * How far over the window the estimate must be before a request is refused: bytes/4
 * overestimates English prose for the most efficient tokenizers by up to ~20%, so a request
 * estimated at less than 125% of the window may still fit.
 */
export const CONTEXT_OVERFLOW_MARGIN = 1.25;

/**
 * The estimated tokens of `text` when they are over the margin (`CONTEXT_OVERFLOW_MARGIN`) of a
 * `window`-token context: text that alone could never fit, whatever the history or a compaction
 * leaves beside it (a prompt, an answer); `undefined` when it may fit.
 */
export function overWindow(text: string, window: number, count: TokenCounter = estimateTokens): number | undefined {
  const estimate = count(text);
  return estimate > window * CONTEXT_OVERFLOW_MARGIN ? estimate : undefined;
}

/** The estimated prompt tokens of `request` (see the module comment for what is counted). */
export function estimateRequestTokens(request: ModelRequest, count: TokenCounter = estimateTokens): number {
  let total = count(request.system ?? "");
  for (const tool of request.tools ?? [])
    total += count(tool.name) + count(tool.description ?? "") + count(JSON.stringify(tool.inputSchema));
  for (const message of request.messages) total += messageTokens(message, count);
  return total;
}

/**
 * A `context-overflow` ProviderError (not retryable) naming the model, the estimate and the
 * window when `request` clearly exceeds the context window of its model in `registry`;
 * `undefined` when it may fit or the model is unknown to the registry (no check).
 */
export function contextWindowProblem(
  request: ModelRequest,
  registry: ModelRegistry,
  count: TokenCounter = estimateTokens,
): ProviderError | undefined {
  const model = registry.find(request.model);
  return model === undefined ? undefined : requestOverWindow(request, model.contextWindow, count);
}

/** The same for a known `window` (tokens): a provider without a registry (the emulator's `contextWindow` option). */
export function requestOverWindow(
  request: ModelRequest,
  window: number,
  count: TokenCounter = estimateTokens,
): ProviderError | undefined {
  const estimate = estimateRequestTokens(request, count);
  if (estimate <= window * CONTEXT_OVERFLOW_MARGIN) return undefined;
  return new ProviderError(
    "context-overflow",
    `the request to ${request.model} is about ${estimate.toLocaleString("en-US")} tokens (estimated), far over the model's ${window.toLocaleString("en-US")}-token context window; it was not sent`,
  );
}

function messageTokens(message: Message, count: TokenCounter): number {
  let total = 0;
  for (const block of message.content) {
    switch (block.type) {
      case "text":
        total += count(block.text);
        break;
      case "tool-call":
        total += count(block.name) + count(block.arguments);
        break;
      case "tool-result":
        for (const part of block.content) if (part.type === "text") total += count(part.text);
        break;
      default:
        break; // reasoning and images: not counted (see the module comment)
    }
  }
  return total;
}
