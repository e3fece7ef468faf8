// MCP sampling on the wire (pure): a server's `sampling/createMessage` params as the provider
// request Keelson sends (and logs), the provider's answer as MCP's CreateMessageResult, the
// question a person approves, and the JSON-RPC errors a refused request gets. Only what a plain
// completion needs is mapped: text and image content, systemPrompt, maxTokens (capped),
// temperature, stopSequences. `modelPreferences` and `includeContext` are ignored (the agent's
// provider and model answer; no other context is added); audio content, and tools in a sampling
// request, are refused (the `sampling.tools` capability is not declared).
import type { CreateMessageRequestParams, CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import type { AssistantResult } from "../llm/core.js";
import { type Message, messageText, previewText } from "../messages/index.js";
import type { JsonObject } from "../json/index.js";
import type { SampledRequest } from "../session/index.js";

/** JSON-RPC error codes a refused sampling request gets (MCP: -1 "User rejected sampling request"). */
export const USER_REJECTED = -1;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/** The error a request handler throws: the SDK sends `{ code, message }` to the server. */
export function samplingRefusal(code: number, message: string): Error & { readonly code: number } {
  return Object.assign(new Error(message), { code });
}

/** The answer schema of the approval question: a person answers `approve` or `deny`. */
export const SAMPLING_APPROVAL_SCHEMA: JsonObject = {
  title: "Approve MCP sampling",
  type: "string",
  enum: ["approve", "deny"],
};

type Part = CreateMessageRequestParams["messages"][number]["content"];

/** The server's messages as Keelson messages; audio, tool use and tool results are refused. */
function messageOf(role: "user" | "assistant", content: Part, index: number): Message {
  const parts = Array.isArray(content) ? content : [content];
  const blocks = parts.map((part) => {
    if (part.type === "text") return { type: "text" as const, text: part.text };
    if (part.type === "image" && role === "user")
      return { type: "image" as const, mediaType: part.mimeType, data: part.data };
    throw samplingRefusal(
      INVALID_PARAMS,
      `messages[${index}]: ${role} content of type ${JSON.stringify(part.type)} is not supported (text, and images from the user)`,
    );
  });
  return role === "user"
    ? { role: "user", content: blocks }
    : { role: "assistant", content: blocks as { type: "text"; text: string }[] };
}

/** The provider request for `params` (what is sent and logged), `maxTokens` capped at `cap`. */
export function sampledRequest(params: CreateMessageRequestParams, model: string, cap: number): SampledRequest {
  if (params.tools !== undefined || params.toolChoice !== undefined)
    throw samplingRefusal(INVALID_PARAMS, "tools in a sampling request are not supported");
  if (params.messages.length === 0) throw samplingRefusal(INVALID_PARAMS, "a sampling request needs a message");
  const messages = params.messages.map((m, i) => messageOf(m.role, m.content, i));
  const stop = params.stopSequences?.filter((s) => s !== "") ?? [];
  return {
    model,
    ...(params.systemPrompt === undefined || params.systemPrompt === "" ? {} : { system: params.systemPrompt }),
    messages,
    maxTokens: Math.max(1, Math.min(Math.floor(params.maxTokens), cap)),
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
    ...(stop.length === 0 ? {} : { stop }),
  };
}

/** What a person reads before approving: the server, the call, the model, the bound and the request's text (previews). */
export function approvalQuestion(server: string, tool: string, request: SampledRequest): string {
  const lines = [
    `The MCP server "${server}" (during ${tool}) asks the model ${request.model} for up to ${request.maxTokens} tokens.`,
    ...(request.system === undefined ? [] : [`system: ${previewText(request.system, 300)}`]),
    ...request.messages.slice(-3).map((m) => `${m.role}: ${previewText(messageText(m), 300)}`),
    "Answer approve (the agent's provider answers it; the server gets the answer) or deny.",
  ];
  if (request.messages.length > 3) lines.splice(-4, 0, `(${request.messages.length - 3} earlier message(s) not shown)`);
  return lines.join("\n");
}

const STOP_REASONS: Readonly<Record<string, string>> = { stop: "endTurn", "max-tokens": "maxTokens" };

/** The provider's answer as MCP's CreateMessageResult: its text (reasoning dropped), the model, why it stopped. */
export function createMessageResult(result: AssistantResult, model: string): CreateMessageResult {
  const text = result.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  return {
    role: "assistant",
    content: { type: "text", text },
    model,
    stopReason: STOP_REASONS[result.finish] ?? result.finish,
  };
}
