// What `uiMessagesFromLog` walks, checked as it goes: a Session or its events (an array), each
// event an object with a string `type`, an integer `seq` and an object `data`, and the content it
// turns into parts (a prompt's text and image parts, an answer's text, reasoning and tool-call
// blocks) of their shapes. A log read from a store or a live Session always passes (the session
// layer validated it); a hand-made array may not, and then the error names the event and its seq
// (`ServeError('invalid-log')`) instead of a TypeError from deep inside the walk. Not the
// session codec (src/session/event-data.ts): only what the walk reads, so a reload stays one pass.
import type { AssistantContent, UserContent } from "../messages/index.js";
import type { SessionEvent } from "../session/index.js";
import { ServeError } from "./types.js";
import { valueName } from "./value-name.js";

/** The events of a Session or of an event array; `ServeError('invalid-argument')` for anything else. */
export function logEventsOf(log: unknown): readonly unknown[] {
  if (Array.isArray(log)) return log;
  const events: unknown = typeof log === "object" && log !== null ? (log as { events?: unknown }).events : undefined;
  if (Array.isArray(events)) return events;
  throw new ServeError(
    "invalid-argument",
    `uiMessagesFromLog: log must be a Session or an array of its events, got ${valueName(log)}`,
  );
}

/** `value` (the log's `index`th entry) as a session event: its envelope checked, not its data's fields. */
export function logEventOf(value: unknown, index: number): SessionEvent {
  const { type, seq, data } = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof type === "string" && Number.isSafeInteger(seq) && typeof data === "object" && data !== null)
    return value as SessionEvent;
  const what =
    typeof value === "object" && value !== null ? `type ${valueName(type)}, seq ${valueName(seq)}` : valueName(value);
  throw new ServeError(
    "invalid-log",
    `uiMessagesFromLog: event ${index} of the log (${what}) is not a session event: it needs a string type, an integer seq and an object data`,
  );
}

/** The error for `event`, whose data is not what its type says (`why`; the thrown `cause`). */
export function invalidLogEvent(event: SessionEvent, cause: unknown): ServeError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new ServeError("invalid-log", `uiMessagesFromLog: ${event.type} (seq ${event.seq}): ${why}`, { cause });
}

/** A prompt's content: an array of text and image parts (throws naming the field otherwise). */
export function userContentOf(content: unknown): readonly UserContent[] {
  for (const [i, part] of contentArray(content).entries()) {
    const p = part as Record<string, unknown>;
    if (p?.type === "text" ? typeof p.text !== "string" : p?.type !== "image" || typeof p.data !== "string")
      throw new TypeError(`data.content[${i}] is not a text or image part (type ${valueName(p?.type)})`);
  }
  return content as readonly UserContent[];
}

/** An answer's content: an array of text, reasoning and tool-call blocks (throws naming the field otherwise). */
export function assistantContentOf(content: unknown): readonly AssistantContent[] {
  for (const [i, block] of contentArray(content).entries()) {
    const b = block as Record<string, unknown>;
    const ok =
      b?.type === "tool-call"
        ? typeof b.callId === "string" && typeof b.name === "string" && typeof b.arguments === "string"
        : (b?.type === "text" || b?.type === "reasoning") && typeof b.text === "string";
    if (!ok)
      throw new TypeError(
        `data.content[${i}] is not a text, reasoning or tool-call block (type ${valueName(b?.type)})`,
      );
  }
  return content as readonly AssistantContent[];
}

function contentArray(content: unknown): readonly unknown[] {
  if (!Array.isArray(content)) throw new TypeError(`data.content is ${valueName(content)}, not an array of parts`);
  return content;
}
