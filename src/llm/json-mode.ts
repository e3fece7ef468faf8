// JSON mode's instruction: a provider whose only structured-output mechanism is "answer with some
// JSON object" (DeepSeek's `response_format: { type: "json_object" }`) learns the schema from the
// prompt, so its adapter appends this text to the system prompt — a pure function of the logged
// `output`, like every other wire detail. DeepSeek also requires the word "json" in the prompt
// and recommends an example of the format; the instruction carries the schema itself.
// `schemaInJsonModeInstruction` reads it back (the emulator uses it to honour the schema).
import type { JsonObject } from "../json/index.js";
import type { OutputFormat } from "./types.js";

const OPENER = "Answer with a single JSON object, and nothing else, that matches this JSON Schema";
const FENCE_OPEN = "```json\n";
const FENCE_CLOSE = "\n```";

/** The instruction for `output`; the schema is JSON.stringify'd as logged (compact, deterministic). */
export function jsonModeInstruction(output: OutputFormat): string {
  return `${OPENER} (${output.name}):\n${FENCE_OPEN}${JSON.stringify(output.schema)}${FENCE_CLOSE}`;
}

/** The system prompt with the instruction appended (a blank line apart), or the instruction alone. */
export function withJsonModeInstruction(system: string | undefined, output: OutputFormat): string {
  const instruction = jsonModeInstruction(output);
  return system === undefined || system === "" ? instruction : `${system}\n\n${instruction}`;
}

/** The schema of the last instruction in `text`, or `undefined` when there is none (or it does not parse). */
export function schemaInJsonModeInstruction(text: string): JsonObject | undefined {
  const at = text.lastIndexOf(OPENER);
  if (at < 0) return undefined;
  const open = text.indexOf(FENCE_OPEN, at);
  const close = open < 0 ? -1 : text.indexOf(FENCE_CLOSE, open + FENCE_OPEN.length);
  if (close < 0) return undefined;
  try {
    const value: unknown = JSON.parse(text.slice(open + FENCE_OPEN.length, close));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}
