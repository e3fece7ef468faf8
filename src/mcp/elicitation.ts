// MCP elicitation (`elicitation/create`, form mode) through Keelson's pause for a person: the
// server's question is asked through the running call's `ToolContext.ask` — logged as an
// `input/request` whose schema is MCP's ElicitResult with the server's `requestedSchema` as its
// `content` — and the answer, checked against it and logged, is what the server gets (the SDK
// then fills in the schema's defaults for omitted fields, SEP-1034). With nobody to answer now
// the server gets `cancel`, the call is suspended and its request cancelled; once the question is
// answered (`agent.respond`, in this or any later process) the call runs again and the same
// question is answered from the log. A question outside any call, or in URL mode, is declined.
import type { JsonObject, JsonValue } from "../json/index.js";
import type { ToolContext } from "../tools/index.js";

export type ElicitAnswer =
  | { readonly action: "accept"; readonly content: Readonly<Record<string, unknown>> }
  | { readonly action: "decline" | "cancel" };

/** The answer schema logged with the question: accept with content matching `requested`, or decline/cancel. */
export function elicitAnswerSchema(requested: JsonObject): JsonObject {
  return {
    oneOf: [
      {
        type: "object",
        properties: { action: { const: "accept" }, content: requested },
        required: ["action", "content"],
        additionalProperties: false,
      },
      {
        type: "object",
        properties: { action: { enum: ["decline", "cancel"] } },
        required: ["action"],
        additionalProperties: false,
      },
    ],
  };
}

/**
 * The server's answer to `elicitation/create` with `params`, asked through `ask` (the running
 * call's), or declined when there is none. `onSuspended` runs when nobody answers now (the
 * caller cancels the call's request): the server is told `cancel`.
 */
export async function answerElicitation(
  params: { readonly message: string; readonly requestedSchema?: unknown; readonly mode?: unknown },
  ask: ToolContext["ask"] | undefined,
  onSuspended: () => void,
): Promise<ElicitAnswer> {
  if (ask === undefined || (params.mode !== undefined && params.mode !== "form")) return { action: "decline" };
  const requested = (params.requestedSchema ?? { type: "object", properties: {} }) as JsonObject;
  const value: JsonValue | undefined = await ask({ message: params.message, schema: elicitAnswerSchema(requested) });
  if (value === undefined) {
    onSuspended();
    return { action: "cancel" };
  }
  return value as unknown as ElicitAnswer;
}
