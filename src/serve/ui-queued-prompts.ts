// Prompts a person sent that the log does not hold yet — a fleet's queued turns
// (`client.openTurns(sessionId)`'s records) waiting for a worker — shown after the log's
// conversation as the user messages the page that sent them has: a page reloaded before a worker
// took its prompt keeps what it asked while the reconnect waits for the answer. A continuation (a
// record with a `decision`) is no prompt, and a turn a worker started (`startSeq`) has its prompt
// in the log: both are skipped. Pure; the message id is `queued-<turn id>`.
import { ServeError } from "./types.js";
import type { UIMessage } from "./ui-types.js";
import { valueName } from "./value-name.js";

/** A queued turn as `client.openTurns()` lists it (its `TurnRecord` has this shape). */
export interface QueuedPrompt {
  readonly id: string;
  readonly prompt: string;
  /** A queued continuation's answer: such a record is no prompt (skipped). */
  readonly decision?: unknown;
  /** Set once a worker started the turn: its prompt is then in the log (skipped). */
  readonly startSeq?: number;
}

/** The user messages of the prompts not started yet; `invalid-options` naming a malformed entry. */
export function queuedPromptMessages(value: unknown): UIMessage[] {
  if (!Array.isArray(value))
    throw new ServeError("invalid-options", `queuedPrompts must be an array, got ${valueName(value)}`);
  const messages: UIMessage[] = [];
  value.forEach((entry: unknown, i) => {
    const record = entry as Partial<QueuedPrompt> | null;
    if (typeof record !== "object" || record === null || typeof record.id !== "string")
      throw new ServeError("invalid-options", `queuedPrompts[${i}] has no string id: ${valueName(entry)}`);
    if (record.decision !== undefined || record.startSeq !== undefined) return;
    if (typeof record.prompt !== "string")
      throw new ServeError(
        "invalid-options",
        `queuedPrompts[${i}].prompt is ${valueName(record.prompt)}, not a string`,
      );
    messages.push({ id: `queued-${record.id}`, role: "user", parts: [{ type: "text", text: record.prompt }] });
  });
  return messages;
}
