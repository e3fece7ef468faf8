// How the rule-based model honours structured output: a final answer (a reply without tool
// calls) becomes JSON — a value built from the schema by `sampleJson`, its first free-form string
// carrying the answer's text — or, in JSON mode without a schema Keelson's instruction states,
// `{"text": …}`. Replies that call tools are left alone (tools first, the answer after).
import type { ScriptedReply } from "../llm/index.js";
import { isContentReply } from "../llm/core.js";
import { sampleJson } from "./schema-sample.js";
import type { EmulatorOutput } from "./types.js";

export function structuredReply(reply: ScriptedReply, output: EmulatorOutput): ScriptedReply {
  if (!isContentReply(reply) || (reply.toolCalls?.length ?? 0) > 0) return reply;
  const text = reply.text ?? "";
  const value = output.schema === undefined ? { text } : sampleJson(output.schema, { text });
  return { ...reply, text: JSON.stringify(value) };
}
