// `ask_user`: the agent asks the person a question and gets the answer as the tool's result
// (#23 §2). The question goes through the loop's pause for a person: the `input/request` is
// logged with the answer's JSON Schema (default: free text), a live answerer (chat, the
// `answerer` option, an `input/ask` listener) may reply at once, else the turn ends
// `awaiting-input` and `agent.respond(callId, { value })` — from any process — continues it.
// Opt in: `builtinTools({ tools: [..., "ask_user"] })`, or register `askUserTool()` yourself.
import type { JsonObject } from "../json/index.js";
import { defineTool, jsonSchema, TEXT_ANSWER } from "../tools/index.js";

const input = jsonSchema<{ question: string; schema?: JsonObject }>({
  type: "object",
  properties: {
    question: { type: "string", description: "The question, as the person will read it" },
    schema: {
      type: "object",
      description: 'Optional JSON Schema the answer must match (default {"type":"string"}: free text)',
    },
  },
  required: ["question"],
});

export function askUserTool() {
  return defineTool({
    name: "ask_user",
    readOnly: true,
    description:
      "Ask the user a question and wait for the answer (it may come much later). Use it when you need a decision or a fact only the user has.",
    input,
    question: ({ question, schema }) => ({ message: question, schema: schema ?? TEXT_ANSWER }),
    execute: (_args, { answer }) =>
      answer === undefined ? "(no answer)" : typeof answer === "string" ? answer : JSON.stringify(answer),
  });
}
