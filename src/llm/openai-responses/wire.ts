// Keelson request → OpenAI Responses params (`client.responses.create`, streaming), stateless:
// `store: false` and no `previous_response_id`, so every request carries the whole conversation
// as input items rebuilt from the log (decision 0023). The mapping is a pure function of the
// request and the wire options, so the same history always serializes to the same bytes and
// OpenAI's automatic prefix cache keeps hitting; `keelson requests --wire responses` prints it.
//
// Messages → items: the system prompt is `instructions`; a user message is a `user` message; an
// assistant message is its blocks in order — reasoning as the Responses reasoning item this API
// produced (logged verbatim in `providerData`, encrypted content included), text as an assistant
// message, tool calls as `function_call` items; each tool message is a `function_call_output`.
// Another API's opaque reasoning is left out (reasoning-carryover.ts). A reasoning item goes back
// only with the item that followed it (the API refuses one alone), and item ids (`msg_…`, `fc_…`)
// only beside their reasoning (the API pairs them; an `fc_` id without its reasoning is refused).
import type OpenAI from "openai";
import type { AssistantMessage, Message, ToolResultPart, UserContent } from "../../messages/index.js";
import { isStrictSchema } from "../openai/response-format.js";
import { modelId } from "../openai/wire.js";
import { ownProviderData } from "../reasoning-carryover.js";
import { ProviderError, type ProviderRequest } from "../types.js";

type Params = OpenAI.Responses.ResponseCreateParamsStreaming;
type InputItem = OpenAI.Responses.ResponseInputItem;

/** The API name on the `providerData` this adapter logs and reads back. */
export const RESPONSES_API = "openai-responses";

export interface ResponsesWireOptions {
  /** Send `prompt_cache_key: request.sessionId` (routes a session's requests to one cache). */
  readonly promptCacheKey: boolean;
  /** `prompt_cache_retention`: `24h` keeps cached prefixes up to a day on models that support it. */
  readonly promptCacheRetention?: "in_memory" | "24h";
  /** `store`: false (default) keeps no state on OpenAI's side. */
  readonly store: boolean;
  /**
   * `include: ["reasoning.encrypted_content"]`, so reasoning items come back encrypted and can be
   * replayed statelessly. `auto`: for reasoning models (`o…`, `gpt-5…` except chat variants).
   */
  readonly encryptedReasoning: boolean | "auto";
}

export const DEFAULT_RESPONSES_WIRE: ResponsesWireOptions = {
  promptCacheKey: true,
  store: false,
  encryptedReasoning: "auto",
};

/** Whether `model` reasons (and so accepts `reasoning.encrypted_content`): o-series and GPT-5 models, not their chat variants. */
export function isReasoningModel(model: string): boolean {
  const id = modelId(model);
  return /^(o\d|gpt-5|codex)/.test(id) && !/chat/.test(id);
}

/**
 * The exact body handed to `client.responses.create` — and so, once the SDK `JSON.stringify`s
 * it, the bytes on the wire. Throws ProviderError('invalid-request') for `stop`, which the
 * Responses API does not have.
 */
export function responsesRequestBody(request: ProviderRequest, options: ResponsesWireOptions): Params {
  if (request.stop !== undefined && request.stop.length > 0)
    throw new ProviderError(
      "invalid-request",
      `the OpenAI Responses API has no stop sequences; remove \`stop\` (${JSON.stringify(request.stop).slice(0, 100)}) from the agent's config`,
    );
  const tools = request.tools?.map(
    (t): OpenAI.Responses.FunctionTool => ({
      type: "function",
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      parameters: t.inputSchema as Record<string, unknown>,
      strict: false,
    }),
  );
  const output = request.output;
  const reasoning = request.reasoning;
  const encrypted =
    options.encryptedReasoning === "auto" ? isReasoningModel(request.model) : options.encryptedReasoning;
  return {
    model: modelId(request.model),
    ...(request.system ? { instructions: request.system } : {}),
    input: toInputItems(request.messages),
    ...(tools === undefined || tools.length === 0 ? {} : { tools }),
    ...(request.maxTokens === undefined ? {} : { max_output_tokens: request.maxTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    // Call config `reasoning` ({ effort?, summary? }), logged on the header like any config field.
    ...(isObject(reasoning) ? { reasoning: reasoning as OpenAI.Reasoning } : {}),
    ...(output === undefined
      ? {}
      : {
          text: {
            format: {
              type: "json_schema",
              name: output.name,
              schema: output.schema as Record<string, unknown>,
              strict: isStrictSchema(output.schema),
            },
          },
        }),
    ...(encrypted ? { include: ["reasoning.encrypted_content"] } : {}),
    store: options.store,
    ...(options.promptCacheKey ? { prompt_cache_key: request.sessionId } : {}),
    ...(options.promptCacheRetention === undefined ? {} : { prompt_cache_retention: options.promptCacheRetention }),
    stream: true,
  };
}

function toInputItems(messages: readonly Message[]): InputItem[] {
  const items: InputItem[] = [];
  /** Keelson call id → the call id the model gave it (a function_call_output must name the same). */
  const wireCallIds = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "user") items.push({ role: "user", content: userContent(message.content) });
    else if (message.role === "assistant") items.push(...assistantItems(message, wireCallIds));
    else {
      const result = message.content[0];
      items.push({
        type: "function_call_output",
        call_id: wireCallIds.get(result.callId) ?? result.callId,
        output: toolOutput(result.content),
      });
    }
  }
  return items;
}

/** A single text block is sent as a plain string (the common, cheapest shape); anything else as parts. */
function userContent(content: readonly UserContent[]): string | OpenAI.Responses.ResponseInputMessageContentList {
  const only = content[0];
  if (content.length === 1 && only?.type === "text") return only.text;
  return content.map((part) =>
    part.type === "text"
      ? { type: "input_text" as const, text: part.text }
      : {
          type: "input_image" as const,
          detail: "auto" as const,
          image_url: `data:${part.mediaType};base64,${part.data}`,
        },
  );
}

function toolOutput(parts: readonly ToolResultPart[]): string | OpenAI.Responses.ResponseFunctionCallOutputItemList {
  if (parts.every((p) => p.type === "text")) return parts.map((p) => (p as { text: string }).text).join("\n");
  return parts.map((p) =>
    p.type === "text"
      ? { type: "input_text" as const, text: p.text }
      : { type: "input_image" as const, detail: "auto" as const, image_url: `data:${p.mediaType};base64,${p.data}` },
  );
}

type Draft = { readonly kind: "reasoning" | "other"; readonly item: InputItem; readonly withId?: InputItem };

/** One assistant message → its items, in block order (see the header for the pairing rules). */
function assistantItems(message: AssistantMessage, wireCallIds: Map<string, string>): InputItem[] {
  const drafts: Draft[] = [];
  for (const block of message.content) {
    const own = ownProviderData(block, RESPONSES_API);
    if (block.type === "reasoning") {
      const item = own?.item;
      if (isObject(item) && typeof item.encrypted_content === "string" && item.encrypted_content !== "")
        drafts.push({ kind: "reasoning", item: item as unknown as InputItem });
    } else if (block.type === "text") {
      if (block.text === "") continue;
      const phase = typeof own?.phase === "string" ? { phase: own.phase as "commentary" | "final_answer" } : {};
      drafts.push({
        kind: "other",
        item: { role: "assistant", content: block.text, ...phase },
        ...(typeof own?.id === "string"
          ? {
              withId: {
                type: "message",
                role: "assistant",
                id: own.id,
                status: "completed",
                content: [{ type: "output_text", text: block.text, annotations: [] }],
                ...phase,
              },
            }
          : {}),
      });
    } else {
      const callId = typeof own?.callId === "string" ? own.callId : block.callId;
      wireCallIds.set(block.callId, callId);
      const call = { type: "function_call" as const, call_id: callId, name: block.name, arguments: block.arguments };
      drafts.push({
        kind: "other",
        item: call,
        ...(typeof own?.id === "string" ? { withId: { ...call, id: own.id } } : {}),
      });
    }
  }
  // A reasoning item is sent only when an item it preceded follows it directly.
  const kept = drafts.filter((d, i) => d.kind !== "reasoning" || drafts[i + 1]?.kind === "other");
  const paired = kept.some((d) => d.kind === "reasoning");
  return kept.map((d) => (paired && d.withId !== undefined ? d.withId : d.item));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
