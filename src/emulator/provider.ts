// EmulatorProvider: the emulator in-process, as a `Provider` — same models, same token counts,
// same cache models as the HTTP server, no sockets — so tests and benches can measure cache
// economics quickly. Anthropic style places breakpoints from the request's structure: end of
// tools+system, end of the session prefix (when the loop says `prefixLength`), the previous
// request's last block (the message before the last assistant message) and the last block.
// DeepSeek style counts prompts as the HTTP DeepSeek style does (deepseek-tokens.ts).
import {
  controlReplyChunks,
  isContentReply,
  type Provider,
  ProviderError,
  type ProviderRequest,
  requestOverWindow,
  type StreamChunk,
} from "../llm/core.js";
import type { Message, Usage } from "../messages/index.js";
import { AnthropicCacheModel, type CacheBlock, type CacheSegment, PrefixCacheModel } from "./cache-model.js";
import { toolSpanAssistants } from "./deepseek-thinking.js";
import {
  deepseekMessageSegment,
  deepseekOutputSegment,
  deepseekToolsSegment,
  reasoningText,
} from "./deepseek-tokens.js";
import { blockUnit, messageSegment, systemSegment, systemUnit, toolsSegment, toolUnit } from "./message-tokens.js";
import { withToolPrompt } from "./anthropic-tool-prompt.js";
import { EmulatorModelError, resolveModel } from "./models.js";
import { plannedUsage, planReply, type PlannedReply, splitPieces } from "./reply-plan.js";
import type { CacheUsage, Clock, EmulatorModel, EmulatorModelOption, EmulatorRequest } from "./types.js";

export interface EmulatorProviderOptions {
  readonly id?: string;
  readonly model?: EmulatorModelOption;
  readonly cacheStyle?: "anthropic" | "openai" | "deepseek";
  readonly clock?: Clock;
  /** Anthropic style: minimum cacheable prefix (default 1024). Prefix styles: minimum hit. */
  readonly minCacheableTokens?: number;
  readonly ttlMs?: number;
  /** Cache namespace (one per API key/org); providers sharing a cache model and namespace share prefixes. */
  readonly namespace?: string;
  /**
   * The model's context window in tokens, as a real provider's registry gives it: an agent then
   * refuses a prompt that could never fit (`prompt-too-large`), and a request clearly over it is
   * refused with `context-overflow`, as the real adapters do. Default: none (nothing checked).
   */
  readonly contextWindow?: number;
}

export class EmulatorProvider implements Provider {
  readonly id: string;
  readonly cacheStyle: "anthropic" | "openai" | "deepseek";
  readonly cache: AnthropicCacheModel | PrefixCacheModel;
  readonly model: EmulatorModel;
  /** Every request received, as sent. */
  readonly requests: ProviderRequest[] = [];
  /** The usage reported for each answered request, in order. */
  readonly usages: Usage[] = [];
  readonly #namespace: string;
  readonly #window: number | undefined;
  #calls = 0;

  constructor(options: EmulatorProviderOptions = {}) {
    this.id = options.id ?? "emulator";
    this.cacheStyle = options.cacheStyle ?? "anthropic";
    this.model = resolveModel(options.model);
    this.#namespace = options.namespace ?? "emulator";
    const window = options.contextWindow;
    if (window !== undefined && (!Number.isSafeInteger(window) || window <= 0))
      throw new TypeError(`contextWindow must be a positive integer (tokens), got ${String(window)}`);
    this.#window = window;
    const common = {
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
    };
    const min = options.minCacheableTokens;
    this.cache =
      this.cacheStyle === "anthropic"
        ? new AnthropicCacheModel({ ...common, ...(min === undefined ? {} : { minCacheableTokens: min }) })
        : new PrefixCacheModel({ style: this.cacheStyle, ...common, ...(min === undefined ? {} : { minTokens: min }) });
  }

  contextWindow(): number | undefined {
    return this.#window;
  }

  async *stream(request: ProviderRequest): AsyncGenerator<StreamChunk> {
    const tooLarge = this.#window === undefined ? undefined : requestOverWindow(request, this.#window);
    if (tooLarge !== undefined) throw tooLarge;
    this.requests.push(request);
    const normalized: EmulatorRequest = {
      api: "in-process",
      model: request.model,
      system: request.system ?? "",
      tools: request.tools ?? [],
      messages: request.messages,
      maxTokens: request.maxTokens,
      stop: request.stop ?? [],
      sessionKey: request.sessionId,
      stream: true,
      // In process there is no wire: the request's own output is the native mechanism.
      ...(request.output === undefined ? {} : { output: { mode: "json_schema", schema: request.output.schema } }),
    };
    let reply: Awaited<ReturnType<EmulatorModel["reply"]>>;
    try {
      reply = await this.model.reply(normalized);
    } catch (error) {
      if (error instanceof EmulatorModelError)
        throw new ProviderError("script-exhausted", error.message, { cause: error });
      throw error;
    }
    if (!isContentReply(reply)) {
      yield* controlReplyChunks(reply, request.signal);
      return;
    }
    const prefix = this.cacheStyle === "anthropic" ? "toolu_emu_" : "call_emu_";
    const plan = planReply(reply, {
      maxTokens: request.maxTokens,
      stop: request.stop ?? [],
      nextCallId: () => `${prefix}${String(++this.#calls).padStart(6, "0")}`,
    });
    const usage = plannedUsage(plan, this.#account(request, plan));
    this.usages.push(usage);
    for (const chunk of this.#chunks(plan, usage)) {
      if (request.signal.aborted) {
        yield { type: "finish", reason: "aborted" };
        return;
      }
      yield chunk;
    }
  }

  #account(request: ProviderRequest, plan: PlannedReply): CacheUsage {
    const namespace = `${this.#namespace}:${request.model}`;
    if (this.cache instanceof AnthropicCacheModel) return this.cache.apply(namespace, anthropicBlocks(request));
    const deepseek = this.cacheStyle === "deepseek";
    const segments: CacheSegment[] = [];
    if ((request.tools?.length ?? 0) > 0)
      segments.push(deepseek ? deepseekToolsSegment(request.tools!) : toolsSegment(request.tools!));
    if ((request.system ?? "") !== "") segments.push(systemSegment(request.system!));
    // DeepSeek keeps (and bills) the reasoning a client sends back in tool-call spans.
    const spans = deepseek ? toolSpanAssistants(request.messages) : new Set<number>();
    request.messages.forEach((message, i) => {
      segments.push(
        deepseek
          ? deepseekMessageSegment(message, spans.has(i) ? reasoningText(message) : undefined)
          : messageSegment(message),
      );
    });
    const output = deepseek ? deepseekOutputSegment(plan, request.messages) : undefined;
    const { promptTokens, cachedTokens } = this.cache.apply(namespace, segments, output);
    return { inputTokens: promptTokens - cachedTokens, cacheReadTokens: cachedTokens, cacheWriteTokens: 0 };
  }

  *#chunks(plan: PlannedReply, usage: Usage): Generator<StreamChunk> {
    let index = 0;
    if (plan.reasoning !== undefined && this.cacheStyle !== "openai") {
      const at = index++;
      const pieces = splitPieces(plan.reasoning.text);
      yield { type: "block-start", index: at, block: { type: "reasoning" } };
      for (const [i, text] of pieces.entries()) {
        const last = i === pieces.length - 1 && this.cacheStyle === "anthropic";
        yield last
          ? { type: "reasoning-delta", index: at, text, signature: plan.reasoning.signature }
          : { type: "reasoning-delta", index: at, text };
      }
      yield { type: "block-end", index: at };
    }
    if (plan.text !== undefined && plan.text !== "") {
      const at = index++;
      yield { type: "block-start", index: at, block: { type: "text" } };
      for (const text of splitPieces(plan.text)) yield { type: "text-delta", index: at, text };
      yield { type: "block-end", index: at };
    }
    for (const call of plan.toolCalls) {
      const at = index++;
      yield { type: "block-start", index: at, block: { type: "tool-call", callId: call.id, name: call.name } };
      for (const argumentsDelta of splitPieces(call.arguments, 16))
        yield { type: "tool-call-delta", index: at, argumentsDelta };
      yield { type: "block-end", index: at };
    }
    yield { type: "usage", usage };
    yield {
      type: "finish",
      reason: plan.finish === "tool-calls" ? "tool-calls" : plan.finish === "max-tokens" ? "max-tokens" : "stop",
    };
  }
}

/**
 * The Anthropic block list of a provider request with Keelson's breakpoints (at most 4): end of
 * tools+system, end of the session prefix, the previous request's last block, the last block.
 */
export function anthropicBlocks(
  request: Pick<ProviderRequest, "tools" | "system" | "messages"> & {
    readonly prefixLength?: unknown;
    /** With tools, the model's tool-use system prompt is counted in the first tool's unit (anthropic-tool-prompt.ts). */
    readonly model?: string;
  },
): CacheBlock[] {
  const units: { tokens: number; hash: string }[] = [];
  for (const tool of request.tools ?? [])
    units.push(
      units.length === 0 && request.model !== undefined
        ? withToolPrompt(toolUnit(tool), request.model, undefined)
        : toolUnit(tool),
    );
  if ((request.system ?? "") !== "") units.push(systemUnit(request.system!));
  const headerEnd = units.length - 1;
  const messageEnds: number[] = [];
  const reasoning = new Set<number>();
  for (const message of request.messages) {
    message.content.forEach((block, i) => {
      if (block.type === "reasoning") reasoning.add(units.length);
      units.push(blockUnit(message.role, i, block));
    });
    messageEnds.push(units.length - 1);
  }
  const marks = new Set<number>();
  const mark = (at: number | undefined): void => {
    let i = at ?? -1;
    while (i >= 0 && reasoning.has(i)) i -= 1;
    if (i >= 0) marks.add(i);
  };
  mark(headerEnd);
  const prefixLength = typeof request.prefixLength === "number" ? request.prefixLength : 0;
  if (prefixLength > 0) mark(messageEnds[prefixLength - 1]);
  const lastAssistant = lastIndexOfRole(request.messages, "assistant");
  if (lastAssistant > 0) mark(messageEnds[lastAssistant - 1]);
  mark(units.length - 1);
  return units.map((unit, i) => ({ ...unit, breakpoint: marks.has(i) }));
}

function lastIndexOfRole(messages: readonly Message[], role: Message["role"]): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) if (messages[i]!.role === role) return i;
  return -1;
}
