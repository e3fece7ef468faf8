// Rendering a planned reply as the Gemini API does: a non-stream GenerateContentResponse, or the
// `alt=sse` stream — `data: <GenerateContentResponse>` events with no terminator: thought parts
// (only when the request asked `includeThoughts`), text pieces, one event per function call
// (whole, without an id, as the Developer API sends them), and a last event with `finishReason`
// and the full `usageMetadata` (earlier events carry only the prompt count). Signatures: the
// first function call part of a step is signed; a step without calls but with thinking gets its
// signature on a last, empty text part (Gemini 3's streaming shape).
import type { JsonObject } from "../json/index.js";
import type { Usage } from "../messages/index.js";
import { geminiSignature } from "./gemini-signatures.js";
import { type PlannedReply, splitPieces } from "./reply-plan.js";
import type { SseEvent } from "./sse.js";

export interface GeminiRenderContext {
  readonly responseId: string;
  readonly model: string;
  readonly usage: Usage;
  readonly includeThoughts: boolean;
}

const FINISH_REASONS = {
  stop: "STOP",
  "stop-sequence": "STOP",
  "tool-calls": "STOP",
  "max-tokens": "MAX_TOKENS",
} as const;

/** `usageMetadata` for normalized usage: the prompt count includes the cached tokens; thoughts are apart from candidates. */
export function geminiUsage(usage: Usage): JsonObject {
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  const thoughts = usage.reasoningTokens ?? 0;
  const candidates = Math.max(0, usage.outputTokens - thoughts);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + usage.outputTokens,
    ...(usage.cacheReadTokens > 0 ? { cachedContentTokenCount: usage.cacheReadTokens } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
  };
}

/** The reply's parts in order, signatures placed as Gemini places them. */
function replyParts(plan: PlannedReply, ctx: GeminiRenderContext): { parts: JsonObject[]; thoughtPieces: string[] } {
  const thoughtPieces = ctx.includeThoughts && plan.reasoning !== undefined ? splitPieces(plan.reasoning.text) : [];
  const seed = `${plan.reasoning?.text ?? ""}\u0000${plan.text ?? ""}\u0000${plan.toolCalls.map((c) => c.name).join(",")}`;
  const signature = geminiSignature(seed);
  const parts: JsonObject[] = [];
  if (plan.text !== undefined && plan.text !== "") parts.push({ text: plan.text });
  plan.toolCalls.forEach((call, i) => {
    parts.push({
      functionCall: { name: call.name, args: parseArgs(call.arguments) },
      ...(i === 0 ? { thoughtSignature: signature } : {}),
    });
  });
  if (plan.toolCalls.length === 0 && plan.reasoning !== undefined)
    parts.push({ text: "", thoughtSignature: signature });
  return { parts, thoughtPieces };
}

function candidate(parts: readonly JsonObject[], finish?: string): JsonObject {
  return {
    content: { parts: [...parts], role: "model" },
    ...(finish === undefined ? {} : { finishReason: finish }),
    index: 0,
  };
}

/** The non-stream response body. */
export function geminiResponse(plan: PlannedReply, ctx: GeminiRenderContext): JsonObject {
  const { parts, thoughtPieces } = replyParts(plan, ctx);
  const thought = thoughtPieces.length > 0 ? [{ text: thoughtPieces.join(""), thought: true }] : [];
  return {
    candidates: [candidate([...thought, ...parts], FINISH_REASONS[plan.finish])],
    usageMetadata: geminiUsage(ctx.usage),
    modelVersion: ctx.model,
    responseId: ctx.responseId,
  };
}

/** The full `alt=sse` stream of a successful call. */
export function geminiEvents(plan: PlannedReply, ctx: GeminiRenderContext): SseEvent[] {
  const { parts, thoughtPieces } = replyParts(plan, ctx);
  const full = geminiUsage(ctx.usage);
  const partial = { promptTokenCount: full.promptTokenCount, totalTokenCount: full.promptTokenCount };
  const chunks: JsonObject[][] = [
    ...thoughtPieces.map((text) => [{ text, thought: true }]),
    ...parts.flatMap((part): JsonObject[][] =>
      typeof part.text === "string" && part.text !== "" ? splitPieces(part.text).map((text) => [{ text }]) : [[part]],
    ),
  ];
  if (chunks.length === 0) chunks.push([{ text: "" }]);
  return chunks.map((chunk, i) => {
    const last = i === chunks.length - 1;
    return {
      data: JSON.stringify({
        candidates: [candidate(chunk, last ? FINISH_REASONS[plan.finish] : undefined)],
        usageMetadata: last ? full : partial,
        modelVersion: ctx.model,
        responseId: ctx.responseId,
      }),
    };
  });
}

function parseArgs(raw: string): JsonObject {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
  } catch {
    return {};
  }
}
