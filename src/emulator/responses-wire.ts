// Parsing a POST /v1/responses body the way the Responses API validates it, into the normalized
// EmulatorRequest plus the automatic-caching segments (the tool list, the instructions, then
// one per input item, in order). The emulator keeps no state, as a `store: false` session
// needs none: `previous_response_id` is refused ("not found"), and a reasoning item must carry
// `encrypted_content` the emulator sealed (responses-reasoning.ts) — without it the API answers
// that the item is not persisted; with another provider's it cannot be verified — and must be
// directly followed by the item it preceded. Function calls pair with their outputs by
// `call_id`. Consecutive assistant-side items (messages, function calls) form one assistant
// message of the normalized request; reasoning items are counted in the prompt but, as on the
// Chat Completions wire, are not part of the normalized messages.
import { contentHash, type JsonValue } from "../json/index.js";
import type { ToolSchema } from "../llm/index.js";
import type { AssistantContent, Message, UserContent } from "../messages/index.js";
import type { CacheSegment } from "./cache-model.js";
import { contentBlockTokens, MESSAGE_OVERHEAD_TOKENS, systemSegment, toolsSegment } from "./message-tokens.js";
import { parseResponsesOutput } from "./output-wire.js";
import { openReasoning } from "./responses-reasoning.js";
import { countTokens } from "./tokenizer.js";
import { type EmulatorRequest, WireError } from "./types.js";
import {
  imageFromUrl,
  invalid,
  isObj,
  type Obj,
  optionalArray,
  optionalPositiveInt,
  optionalString,
  requireArray,
  requireObj,
  requireString,
  schemaObject,
} from "./wire-json.js";

export interface ParsedResponsesRequest {
  readonly request: EmulatorRequest;
  readonly segments: readonly CacheSegment[];
  /** `include` asked for `reasoning.encrypted_content`. */
  readonly encryptedReasoning: boolean;
  /** `reasoning.summary` was set: reasoning items carry summary text. */
  readonly reasoningSummary: boolean;
  /** `store` as sent (the API's default is true). */
  readonly store: boolean;
  readonly promptCacheRetention: "in_memory" | "24h" | undefined;
}

/** Builds the normalized messages while walking the input items. */
class Conversation {
  readonly messages: Message[] = [];
  /** Assistant content being collected from consecutive assistant-side items. */
  #assistant: AssistantContent[] | undefined;
  /** Function call ids still owed an output, with the path of the call. */
  readonly pending = new Map<string, string>();

  assistant(block: AssistantContent): void {
    if (this.#assistant === undefined) {
      this.#assistant = [];
      this.messages.push({ role: "assistant", content: this.#assistant });
    }
    this.#assistant.push(block);
  }

  other(message: Message): void {
    this.#assistant = undefined;
    this.messages.push(message);
  }
}

export function parseResponsesRequest(raw: unknown): ParsedResponsesRequest {
  const body = requireObj(raw, "body");
  if (typeof body.model !== "string" || body.model === "")
    throw invalid("Missing required parameter: 'model'.", "model");
  if (typeof body.previous_response_id === "string")
    throw new WireError("not-found", `Previous response with id '${body.previous_response_id}' not found.`, {
      param: "previous_response_id",
    });
  if (body.input === undefined || body.input === null) throw invalid("Missing required parameter: 'input'.", "input");
  const store = body.store !== false;
  const tools = optionalArray(body.tools, "tools").map((t, i): ToolSchema => {
    const tool = requireObj(t, `tools[${i}]`);
    if (tool.type !== "function")
      throw invalid(`Invalid value: '${String(tool.type)}'. Supported values are: 'function'.`, `tools[${i}].type`);
    const description = optionalString(tool.description, `tools[${i}].description`);
    return {
      name: requireString(tool.name, `tools[${i}].name`),
      inputSchema: schemaObject(tool.parameters ?? undefined, `tools[${i}].parameters`),
      ...(description === undefined ? {} : { description }),
    };
  });
  const instructions = optionalString(body.instructions, "instructions");
  const segments: CacheSegment[] = [];
  if (tools.length > 0) segments.push(toolsSegment(tools));
  const systemTexts: string[] = [];
  if (instructions !== undefined && instructions !== "") {
    systemTexts.push(instructions);
    segments.push(systemSegment(instructions));
  }

  const conversation = new Conversation();
  const items =
    typeof body.input === "string" ? [{ role: "user", content: body.input }] : requireArray(body.input, "input");
  items.forEach((entry, i) => {
    const item = requireObj(entry, `input[${i}]`);
    const path = `input[${i}]`;
    const type = item.type ?? (item.role === undefined ? undefined : "message");
    if (type === "reasoning") {
      segments.push(reasoningSegment(item, path, items[i + 1], store));
      return;
    }
    if (type === "function_call") {
      const callId = requireString(item.call_id, `${path}.call_id`);
      const block: AssistantContent = {
        type: "tool-call",
        callId,
        name: requireString(item.name, `${path}.name`),
        arguments: requireString(item.arguments, `${path}.arguments`),
      };
      conversation.assistant(block);
      conversation.pending.set(callId, path);
      segments.push(segmentOf(item, [block]));
      return;
    }
    if (type === "function_call_output") {
      const callId = requireString(item.call_id, `${path}.call_id`);
      if (!conversation.pending.delete(callId))
        throw invalid(`No tool call found for function call output with call_id ${callId}.`, "input");
      const content = outputContent(item.output, `${path}.output`);
      conversation.other({ role: "tool", content: [{ type: "tool-result", callId, content, isError: false }] });
      segments.push(segmentOf(item, content));
      return;
    }
    if (type !== "message")
      throw invalid(
        `Invalid value: '${String(type)}'. Supported values are: 'message', 'reasoning', 'function_call' and 'function_call_output'.`,
        `${path}.type`,
      );
    const role = item.role;
    if (role === "assistant") {
      const text = partsText(item.content, path);
      if (text !== "") conversation.assistant({ type: "text", text });
      segments.push(segmentOf(item, [{ type: "text", text }]));
      return;
    }
    owedOutputs(conversation);
    if (role === "system" || role === "developer") {
      const text = partsText(item.content, path);
      systemTexts.push(text);
      segments.push(systemSegment(text));
      return;
    }
    if (role !== "user")
      throw invalid(
        `Invalid value: '${String(role)}'. Supported values are: 'user', 'assistant', 'system', and 'developer'.`,
        `${path}.role`,
      );
    const content = userContent(item.content, path);
    conversation.other({ role: "user", content });
    segments.push(segmentOf(item, content));
  });
  owedOutputs(conversation);

  const include = optionalArray(body.include, "include").map((v, i) => requireString(v, `include[${i}]`));
  const reasoning = isObj(body.reasoning) ? body.reasoning : undefined;
  const cacheKey =
    typeof body.prompt_cache_key === "string" && body.prompt_cache_key !== "" ? body.prompt_cache_key : undefined;
  const user = typeof body.user === "string" && body.user !== "" ? body.user : undefined;
  const output = parseResponsesOutput(body);
  const retention = body.prompt_cache_retention;
  if (retention !== undefined && retention !== null && retention !== "in_memory" && retention !== "24h")
    throw invalid(
      `Invalid value: '${String(retention)}'. Supported values are: 'in_memory' and '24h'.`,
      "prompt_cache_retention",
    );
  const request: EmulatorRequest = {
    api: "responses",
    model: body.model,
    system: systemTexts.join("\n\n"),
    tools,
    messages: conversation.messages,
    maxTokens: optionalPositiveInt(body.max_output_tokens, "max_output_tokens"),
    stop: [],
    sessionKey: cacheKey ?? user ?? "default",
    stream: body.stream === true,
    ...(output === undefined ? {} : { output }),
  };
  return {
    request,
    segments,
    encryptedReasoning: include.includes("reasoning.encrypted_content"),
    reasoningSummary: typeof reasoning?.summary === "string",
    store,
    promptCacheRetention: retention === "in_memory" || retention === "24h" ? retention : undefined,
  };
}

/** A reasoning input item: sealed by the emulator, followed by its item; its tokens count in the prompt. */
function reasoningSegment(item: Obj, path: string, next: unknown, store: boolean): CacheSegment {
  const id = typeof item.id === "string" ? item.id : "";
  const sealed = item.encrypted_content;
  if (typeof sealed !== "string" || sealed === "")
    throw new WireError(
      "not-found",
      store
        ? `Item with id '${id}' not found.`
        : `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
      { param: "input" },
    );
  const text = openReasoning(sealed);
  if (text === undefined)
    throw invalid(
      `The encrypted content for item ${id} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`,
      "input",
    );
  const following = isObj(next) ? (next.type ?? (next.role === "assistant" ? "message" : undefined)) : undefined;
  const assistantSide =
    following === "function_call" || (following === "message" && isObj(next) && next.role === "assistant");
  if (!assistantSide)
    throw invalid(
      `Item '${id}' of type 'reasoning' was provided without its required following item.`,
      path.replace(/\[\d+\]$/, ""),
    );
  return { tokens: MESSAGE_OVERHEAD_TOKENS + countTokens(text), hash: contentHash(item as JsonValue) };
}

/** An item's cache unit: its content's tokens plus the per-item overhead, hashed over the item as sent. */
function segmentOf(item: Obj, content: readonly (AssistantContent | UserContent)[]): CacheSegment {
  return {
    tokens: MESSAGE_OVERHEAD_TOKENS + content.reduce((sum, block) => sum + contentBlockTokens(block), 0),
    hash: contentHash(item as JsonValue),
  };
}

function owedOutputs(conversation: Conversation): void {
  const [callId] = conversation.pending.keys();
  if (callId !== undefined) throw invalid(`No tool output found for function call ${callId}.`, "input");
}

/** Text of a string or a list of text parts (`input_text`, `output_text`, `refusal`). */
function partsText(content: unknown, path: string): string {
  if (typeof content === "string") return content;
  return requireArray(content, `${path}.content`)
    .map((p, j) => {
      const part = requireObj(p, `${path}.content[${j}]`);
      if (part.type === "input_text" || part.type === "output_text")
        return requireString(part.text, `${path}.content[${j}].text`);
      if (part.type === "refusal") return requireString(part.refusal, `${path}.content[${j}].refusal`);
      throw invalid(
        `Invalid value: '${String(part.type)}'. Supported values are: 'input_text', 'output_text' and 'refusal'.`,
        `${path}.content[${j}].type`,
      );
    })
    .join("");
}

function userContent(content: unknown, path: string): UserContent[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return requireArray(content, `${path}.content`).map((p, j) => partOf(p, `${path}.content[${j}]`));
}

/** A function_call_output's `output`: a string, or input_text / input_image parts. */
function outputContent(output: unknown, path: string): UserContent[] {
  if (typeof output === "string") return [{ type: "text", text: output }];
  return requireArray(output, path).map((p, j) => partOf(p, `${path}[${j}]`));
}

function partOf(p: unknown, path: string): UserContent {
  const part = requireObj(p, path);
  if (part.type === "input_text") return { type: "text", text: requireString(part.text, `${path}.text`) };
  if (part.type === "input_image") return imageFromUrl(requireString(part.image_url, `${path}.image_url`));
  throw invalid(
    `Invalid value: '${String(part.type)}'. Supported values are: 'input_text' and 'input_image'.`,
    `${path}.type`,
  );
}
