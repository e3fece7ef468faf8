// Keelson request → the Gemini `generateContent` REST body, exactly as the `@google/genai` SDK
// puts it on the wire: the adapter hands the SDK these contents and config, the SDK rebuilds the
// body in its own fixed key order (contents, systemInstruction, tools, cachedContent,
// generationConfig; part keys functionCall, functionResponse, inlineData, text, thought,
// thoughtSignature), and this function writes the same order, so `JSON.stringify(body)` is the
// bytes sent (a test pins it against the SDK). The model is not in the body: the SDK puts it in
// the URL (`models/<id>:streamGenerateContent?alt=sse`).
//
// Mapping: user text and images → a `user` content; assistant text, function calls and signed
// thought parts → a `model` content; the tool results of one step → one `user` content of
// `functionResponse` parts ({output} or {error}, named after their call), images after them.
// Thought signatures go back on the part they came with (`providerData: { api: "gemini",
// thoughtSignature }` on its block); another API's opaque reasoning is never sent
// (reasoning-carryover.ts). A function call Keelson
// gave an id to (Gemini sent none) goes back without one. Structured output → `responseMimeType:
// application/json` + `responseJsonSchema`. Explicit context caching: a request whose config
// names `geminiCache: { name, messages }` sends `cachedContent: name` and leaves out what the
// cache holds — system instruction, tools and the first `messages` contents.
import type { JsonObject, JsonValue } from "../../json/index.js";
import type { AssistantMessage, Message, ToolResultPart, UserContent } from "../../messages/index.js";
import { ownProviderData } from "../reasoning-carryover.js";
import type { ProviderRequest } from "../types.js";

export interface GeminiPart {
  functionCall?: { args: JsonObject; id?: string; name: string };
  functionResponse?: { id?: string; name: string; response: JsonObject };
  inlineData?: { mimeType: string; data: string };
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
}

export interface GeminiContent {
  readonly parts: GeminiPart[];
  readonly role: "user" | "model";
}

export interface GeminiGenerationConfig {
  temperature?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  responseMimeType?: string;
  responseJsonSchema?: JsonObject;
  thinkingConfig?: JsonObject;
}

export interface GeminiFunctionDeclaration {
  readonly name: string;
  readonly description?: string;
  readonly parametersJsonSchema: JsonObject;
}

/** The REST body of `models/<model>:streamGenerateContent`. */
export interface GeminiRequestBody {
  readonly contents: GeminiContent[];
  readonly systemInstruction?: { readonly parts: { readonly text: string }[] };
  readonly tools?: { readonly functionDeclarations: GeminiFunctionDeclaration[] }[];
  readonly cachedContent?: string;
  readonly generationConfig: GeminiGenerationConfig;
}

/** A context cache the request reads (request config `geminiCache`): its name and how many leading messages it holds. */
export interface GeminiCacheRef {
  readonly name: string;
  readonly messages: number;
}

/** The `providerData.api` of what Gemini sent (thought signatures). */
export const GEMINI_API = "gemini";

/** Prefix of the call ids Keelson mints for function calls Gemini sent without an id. */
export const MINTED_CALL_ID_PREFIX = "gemini_call_";

/**
 * Google's documented stand-in for a thought signature on a function call that Gemini did not
 * make (a history from another model): Gemini 3 validates signatures on the current turn's
 * function calls and refuses a request without one.
 */
export const SKIP_SIGNATURE = "skip_thought_signature_validator";

/** `provider:model` → the model id the SDK puts in the URL. */
export function geminiModelId(model: string): string {
  return model.includes(":") ? model.slice(model.indexOf(":") + 1) : model;
}

/** The request's context cache, when its config names a well-formed one. */
export function geminiCacheOf(request: ProviderRequest): GeminiCacheRef | undefined {
  const cache = request.geminiCache as { name?: unknown; messages?: unknown } | undefined;
  if (typeof cache !== "object" || cache === null) return undefined;
  if (typeof cache.name !== "string" || cache.name === "") return undefined;
  const messages = typeof cache.messages === "number" && Number.isInteger(cache.messages) ? cache.messages : 0;
  // The SDK names a bare id `cachedContents/<id>` (as the API does); so does the body here.
  const name =
    !cache.name.startsWith("cachedContents/") && !cache.name.includes("/")
      ? `cachedContents/${cache.name}`
      : cache.name;
  return { name, messages: Math.max(0, messages) };
}

/** The body the SDK sends for `request` (see the header comment). */
export function geminiRequestBody(request: ProviderRequest): GeminiRequestBody {
  const cache = geminiCacheOf(request);
  const contents = toContents(request.messages.slice(cache?.messages ?? 0));
  const tools = request.tools?.map(
    (t): GeminiFunctionDeclaration => ({
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      parametersJsonSchema: t.inputSchema,
    }),
  );
  const generationConfig: GeminiGenerationConfig = {
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.maxTokens === undefined ? {} : { maxOutputTokens: request.maxTokens }),
    ...(request.stop === undefined || request.stop.length === 0 ? {} : { stopSequences: [...request.stop] }),
    ...(request.output === undefined
      ? {}
      : { responseMimeType: "application/json", responseJsonSchema: request.output.schema }),
    ...(isObject(request.thinkingConfig) ? { thinkingConfig: request.thinkingConfig } : {}),
  };
  return {
    contents,
    ...(cache !== undefined || !request.system ? {} : { systemInstruction: { parts: [{ text: request.system }] } }),
    ...(cache !== undefined || tools === undefined || tools.length === 0
      ? {}
      : { tools: [{ functionDeclarations: tools }] }),
    ...(cache === undefined ? {} : { cachedContent: cache.name }),
    generationConfig,
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toContents(messages: readonly Message[]): GeminiContent[] {
  const names = new Map<string, string>(); // callId → function name, for the responses
  const contents: GeminiContent[] = [];
  let results: GeminiContent | undefined; // the open run of tool results
  let images: GeminiPart[] = [];
  const closeResults = (): void => {
    if (results !== undefined) results.parts.push(...images);
    results = undefined;
    images = [];
  };
  for (const message of messages) {
    if (message.role === "tool") {
      const result = message.content[0];
      if (results === undefined) {
        results = { parts: [], role: "user" };
        contents.push(results);
      }
      results.parts.push({ functionResponse: functionResponse(result, names.get(result.callId)) });
      images.push(...imageParts(result.content));
      continue;
    }
    closeResults();
    const parts = message.role === "user" ? userParts(message.content) : modelParts(message, names);
    if (parts.length > 0) contents.push({ parts, role: message.role === "user" ? "user" : "model" });
  }
  closeResults();
  signCurrentTurnCalls(contents);
  return contents;
}

function userParts(content: readonly UserContent[]): GeminiPart[] {
  return content.flatMap((b): GeminiPart[] =>
    b.type === "text"
      ? b.text === ""
        ? []
        : [{ text: b.text }]
      : [{ inlineData: { mimeType: b.mediaType, data: b.data } }],
  );
}

function imageParts(content: readonly ToolResultPart[]): GeminiPart[] {
  return content.flatMap((p): GeminiPart[] =>
    p.type === "image" ? [{ inlineData: { mimeType: p.mediaType, data: p.data } }] : [],
  );
}

function functionResponse(
  result: Extract<Message, { role: "tool" }>["content"][0],
  name: string | undefined,
): NonNullable<GeminiPart["functionResponse"]> {
  const text = result.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
  return {
    ...(result.callId.startsWith(MINTED_CALL_ID_PREFIX) ? {} : { id: result.callId }),
    // A result whose call is not in the request (cut by compaction) still needs a name.
    name: name ?? "unknown_function",
    response: result.isError ? { error: text } : { output: text },
  };
}

/** The thought signature Gemini put on `block`'s part, when Gemini made it. */
function signatureOf(block: AssistantMessage["content"][number]): string | undefined {
  const signature = ownProviderData(block, GEMINI_API)?.thoughtSignature;
  return typeof signature === "string" ? signature : undefined;
}

/** One assistant message → model parts, each with the signature it came with. */
function modelParts(message: AssistantMessage, names: Map<string, string>): GeminiPart[] {
  return message.content.flatMap((block): GeminiPart[] => {
    const signature = signatureOf(block);
    const signed = signature === undefined ? {} : { thoughtSignature: signature };
    switch (block.type) {
      case "text":
        return block.text === "" && signature === undefined ? [] : [{ text: block.text, ...signed }];
      case "tool-call":
        names.set(block.callId, block.name);
        return [
          {
            functionCall: {
              args: parseArgs(block.arguments),
              ...(block.callId.startsWith(MINTED_CALL_ID_PREFIX) ? {} : { id: block.callId }),
              name: block.name,
            },
            ...signed,
          },
        ];
      default:
        // Reasoning: only Gemini's own signed thoughts go back (Gemini reads nothing from unsigned
        // summaries; another API's opaque reasoning is never sent).
        return signature === undefined ? [] : [{ text: block.text, thought: true, thoughtSignature: signature }];
    }
  });
}

/** Function-call arguments as the object Gemini wants; anything but a JSON object is sent as {}. */
function parseArgs(raw: string): JsonObject {
  try {
    const value = JSON.parse(raw) as JsonValue;
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * Gemini 3 refuses a request whose current turn (the contents after the last user content that
 * holds no function response) has a model step whose function calls carry no signature —
 * which happens only when another provider made them. The first call of such a step gets the
 * documented stand-in signature.
 */
function signCurrentTurnCalls(contents: GeminiContent[]): void {
  let start = 0;
  contents.forEach((content, i) => {
    if (content.role === "user" && content.parts.every((p) => p.functionResponse === undefined)) start = i + 1;
  });
  for (const content of contents.slice(start)) {
    if (content.role !== "model") continue;
    const calls = content.parts.filter((p) => p.functionCall !== undefined);
    if (calls.length === 0 || calls.some((p) => p.thoughtSignature !== undefined)) continue;
    calls[0]!.thoughtSignature = SKIP_SIGNATURE;
  }
}
