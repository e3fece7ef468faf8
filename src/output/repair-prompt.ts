// The repair round's prompt: what the model is told when its answer failed the output schema.
// It lists the (already bounded) issues and asks for the corrected JSON alone; it does not repeat
// the schema, which the request still carries (natively, or in JSON mode's system instruction).
// The loop logs it as a `context/message` with source `output-repair` (REPAIR_SOURCE).

/** The `context/message` source of a repair prompt. */
export const REPAIR_SOURCE = "output-repair";

export function repairPrompt(issues: readonly string[]): string {
  return [
    "Your answer does not match the required output schema:",
    ...issues.map((issue) => `- ${issue}`),
    "Answer again with only the corrected JSON object.",
  ].join("\n");
}
