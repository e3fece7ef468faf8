// Parsing a POST /v1beta/models/<model>:streamGenerateContent (or :generateContent) body the way
// the Gemini API validates it, into the normalized EmulatorRequest plus the implicit-caching
// segments (system instruction, tools, then one per content). Validation errors are the API's
// 400s (`INVALID_ARGUMENT`): an unknown field ("Invalid JSON payload received. Unknown name …"),
// empty contents or parts, a part with no data, a role other than user/model, function responses
// that do not answer the previous model turn's calls one for one, a thought signature the
// emulator never issued ("Corrupted thought signature."), and — for `gemini-3…` models — a
// current-turn function-call step without a signature. Function calls without an id are matched
// to their responses in order, as Gemini does; the normalized messages give them `fc_<n>` ids.
// A body naming an explicit cache (`cachedContent`) is read as the cache's system, tools and
// contents followed by its own (gemini-caches.ts); an unknown or expired name is the API's 403.
import type { ToolSchema } from "../llm/index.js";
import type { AssistantContent, Message, UserContent } from "../messages/index.js";
import type { CacheSegment } from "./cache-model.js";
import { geminiSignatureProblem } from "./gemini-signatures.js";
import { messageSegment, systemSegment, toolsSegment } from "./message-tokens.js";
import { CACHE_NOT_FOUND, type GeminiCachedPrompt } from "./gemini-caches.js";
import { type EmulatorOutput, type EmulatorRequest, WireError } from "./types.js";
import {
  invalid,
  isObj,
  type Obj,
  optionalArray,
  optionalPositiveInt,
  requireArray,
  requireObj,
  requireString,
  schemaObject,
  stopList,
} from "./wire-json.js";

export interface ParsedGeminiRequest {
  readonly request: EmulatorRequest;
  readonly segments: readonly CacheSegment[];
  /** `generationConfig.thinkingConfig.includeThoughts`: thought summaries are streamed. */
  readonly includeThoughts: boolean;
  /** The explicit cache's tokens, when the body named a `cachedContent` (read at the cached rate). */
  readonly cachedTokens?: number;
}

const TOP_LEVEL = new Set([
  "contents",
  "systemInstruction",
  "tools",
  "toolConfig",
  "safetySettings",
  "cachedContent",
  "generationConfig",
  "labels",
  "serviceTier",
]);
const GENERATION = new Set([
  "temperature",
  "topP",
  "topK",
  "candidateCount",
  "maxOutputTokens",
  "stopSequences",
  "presencePenalty",
  "frequencyPenalty",
  "seed",
  "responseMimeType",
  "responseSchema",
  "responseJsonSchema",
  "responseModalities",
  "thinkingConfig",
]);

function unknownFields(obj: Obj, known: ReadonlySet<string>, at: string): void {
  for (const key of Object.keys(obj))
    if (!known.has(key)) throw invalid(`Invalid JSON payload received. Unknown name "${key}"${at}: Cannot find field.`);
}

/** A generateContent body's prompt: system, tools and contents, parsed and split into cache segments. */
interface GeminiPrompt {
  readonly system: string;
  readonly tools: ToolSchema[];
  readonly messages: Message[];
  readonly segments: CacheSegment[];
}

function parsePrompt(system: unknown, toolList: unknown, wire: readonly unknown[], model: string): GeminiPrompt {
  const text = systemText(system);
  const tools = optionalArray(toolList, "tools").flatMap((t, i) =>
    optionalArray(requireObj(t, `tools[${i}]`).functionDeclarations, `tools[${i}].function_declarations`).map(
      (d, j): ToolSchema => {
        const path = `tools[${i}].function_declarations[${j}]`;
        const decl = requireObj(d, path);
        const description = typeof decl.description === "string" ? decl.description : undefined;
        return {
          name: requireString(decl.name, `${path}.name`),
          inputSchema: schemaObject(decl.parametersJsonSchema ?? decl.parameters, `${path}.parameters`),
          ...(description === undefined ? {} : { description }),
        };
      },
    ),
  );
  const messages = parseContents(wire, model);
  const segments: CacheSegment[] = [];
  if (text !== "") segments.push(systemSegment(text));
  if (tools.length > 0) segments.push(toolsSegment(tools));
  for (const message of messages) segments.push(messageSegment(message));
  return { system: text, tools, messages, segments };
}

/** The tokens an explicit cache holds (its system, tools and contents, counted as a request would count them). */
export function geminiCachedTokens(prompt: Omit<GeminiCachedPrompt, "tokens">): number {
  const parsed = parsePrompt(prompt.systemInstruction, prompt.tools, prompt.contents, prompt.model);
  return parsed.segments.reduce((sum, s) => sum + s.tokens, 0);
}

/**
 * `model` and `stream` come from the URL. A body naming `cachedContent` is read as the cache's
 * system, tools and contents followed by its own contents (`lookup` finds the caller's live
 * cache; none → the API's 403), and may not set system instruction, tools or tool config itself.
 */
export function parseGeminiRequest(
  raw: unknown,
  route: { model: string; stream: boolean },
  lookup?: (name: string) => GeminiCachedPrompt | undefined,
): ParsedGeminiRequest {
  const body = requireObj(raw, "body");
  unknownFields(body, TOP_LEVEL, "");
  const generation = body.generationConfig === undefined ? {} : requireObj(body.generationConfig, "generationConfig");
  unknownFields(generation, GENERATION, " at 'generation_config'");
  const wire = requireArray(body.contents, "contents");
  if (wire.length === 0) throw invalid("* GenerateContentRequest.contents: contents is not specified");
  const cache = cachedPrompt(body, lookup);
  const { system, tools, messages, segments } =
    cache === undefined
      ? parsePrompt(body.systemInstruction, body.tools, wire, route.model)
      : parsePrompt(cache.systemInstruction, cache.tools, [...cache.contents, ...wire], route.model);

  const output = parseOutput(generation);
  const thinking = isObj(generation.thinkingConfig) ? generation.thinkingConfig : {};
  const request: EmulatorRequest = {
    api: "gemini",
    model: route.model,
    system,
    tools,
    messages,
    maxTokens: optionalPositiveInt(generation.maxOutputTokens, "generation_config.max_output_tokens"),
    stop: stopList(generation.stopSequences, "generation_config.stop_sequences"),
    sessionKey: "default",
    stream: route.stream,
    ...(output === undefined ? {} : { output }),
  };
  return {
    request,
    segments,
    includeThoughts: thinking.includeThoughts === true,
    ...(cache === undefined ? {} : { cachedTokens: cache.tokens }),
  };
}

/** The explicit cache a body names, checked as the API checks it. */
function cachedPrompt(
  body: Obj,
  lookup: ((name: string) => GeminiCachedPrompt | undefined) | undefined,
): GeminiCachedPrompt | undefined {
  if (body.cachedContent === undefined || body.cachedContent === null) return undefined;
  const name = requireString(body.cachedContent, "cached_content");
  if (body.systemInstruction !== undefined || body.tools !== undefined || body.toolConfig !== undefined)
    throw invalid(
      "CachedContent can not be used with GenerateContent request setting system_instruction, tools or tool_config.\n\nProposed fix: move those values to CachedContent from GenerateContent request.",
    );
  const cache = lookup?.(name);
  if (cache === undefined) throw new WireError("permission", CACHE_NOT_FOUND, { status: 403 });
  return cache;
}

function systemText(value: unknown): string {
  if (value === undefined || value === null) return "";
  const content = requireObj(value, "system_instruction");
  return requireArray(content.parts, "system_instruction.parts")
    .map((p, i) =>
      requireString(requireObj(p, `system_instruction.parts[${i}]`).text, `system_instruction.parts[${i}].text`),
    )
    .join("\n");
}

function parseOutput(generation: Obj): EmulatorOutput | undefined {
  if (generation.responseMimeType !== "application/json") return undefined;
  const schema = generation.responseJsonSchema ?? generation.responseSchema;
  return schema === undefined
    ? { mode: "json_object" }
    : { mode: "json_schema", schema: schemaObject(schema, "generation_config.response_json_schema") };
}

interface PendingCall {
  readonly id: string | undefined;
  readonly name: string;
  readonly callId: string;
}

function parseContents(wire: readonly unknown[], model: string): Message[] {
  const out: Message[] = [];
  const pending: PendingCall[] = [];
  let calls = 0;
  let turnStart = 0; // index in `wire` of the content after the last user content with no function response
  const modelSteps: { index: number; signed: boolean; name: string }[] = [];
  wire.forEach((c, ci) => {
    const path = `contents[${ci}]`;
    const content = requireObj(c, path);
    const role = content.role ?? "user";
    if (role !== "user" && role !== "model")
      throw invalid(`Please use a valid role: user, model. (${path}.role: ${JSON.stringify(role)})`);
    const parts = requireArray(content.parts, `${path}.parts`);
    if (parts.length === 0) throw invalid(`* GenerateContentRequest.${path}.parts: contents.parts must not be empty.`);
    const user: UserContent[] = [];
    const assistant: AssistantContent[] = [];
    let responses = 0;
    let signed = false;
    let stepCalls = 0;
    parts.forEach((p, pi) => {
      const at = `${path}.parts[${pi}]`;
      const part = requireObj(p, at);
      if (part.thoughtSignature !== undefined) {
        const signature = requireString(part.thoughtSignature, `${at}.thought_signature`);
        const problem = geminiSignatureProblem(signature);
        if (problem !== undefined) throw invalid(problem);
        signed = true;
      }
      if (isObj(part.functionCall)) {
        if (role !== "model") throw invalid(`${at}: function_call parts are only allowed in model contents`);
        const name = requireString(part.functionCall.name, `${at}.function_call.name`);
        const id = typeof part.functionCall.id === "string" ? part.functionCall.id : undefined;
        const callId = id ?? `fc_${++calls}`;
        assistant.push({ type: "tool-call", callId, name, arguments: JSON.stringify(part.functionCall.args ?? {}) });
        pending.push({ id, name, callId });
        stepCalls += 1;
      } else if (isObj(part.functionResponse)) {
        if (role !== "user") throw invalid(`${at}: function_response parts are only allowed in user contents`);
        const name = requireString(part.functionResponse.name, `${at}.function_response.name`);
        const response = requireObj(part.functionResponse.response, `${at}.function_response.response`);
        const id = typeof part.functionResponse.id === "string" ? part.functionResponse.id : undefined;
        const match = pending.findIndex((c) => (id !== undefined ? c.id === id : c.name === name));
        if (match < 0) throw invalid(countMismatch());
        const [call] = pending.splice(match, 1);
        responses += 1;
        const text =
          typeof response.output === "string"
            ? response.output
            : typeof response.error === "string"
              ? response.error
              : JSON.stringify(response);
        out.push({
          role: "tool",
          content: [
            {
              type: "tool-result",
              callId: call!.callId,
              content: [{ type: "text", text }],
              isError: response.error !== undefined,
            },
          ],
        });
      } else if (isObj(part.inlineData)) {
        const image = {
          type: "image" as const,
          mediaType: requireString(part.inlineData.mimeType, `${at}.inline_data.mime_type`),
          data: requireString(part.inlineData.data, `${at}.inline_data.data`),
        };
        if (role === "user") user.push(image);
      } else if (typeof part.text === "string") {
        if (role === "user") user.push({ type: "text", text: part.text });
        else if (part.thought === true) assistant.push({ type: "reasoning", text: part.text });
        else assistant.push({ type: "text", text: part.text });
      } else throw invalid(`${at}: a part must hold text, inline_data, function_call or function_response`);
    });
    if (role === "user") {
      if (pending.length > 0 && responses === 0) throw invalid(countMismatch());
      if (responses > 0 && pending.length > 0) throw invalid(countMismatch());
      if (responses === 0) turnStart = ci + 1;
      if (user.length > 0) out.push({ role: "user", content: user });
    } else {
      if (pending.length > stepCalls) throw invalid(countMismatch());
      out.push({ role: "assistant", content: assistant });
      const first = assistant.find((b) => b.type === "tool-call");
      if (first !== undefined) modelSteps.push({ index: ci, signed, name: first.name });
    }
  });
  if (model.startsWith("gemini-3"))
    for (const step of modelSteps)
      if (step.index >= turnStart && !step.signed)
        throw invalid(
          `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${step.name}\` , position ${step.index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
        );
  return out;
}

function countMismatch(): string {
  return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
}
