// deriveEventMessage: the one public per-event projection from a surface event to the message
// the model sees. Every history fold (the live session's cache, reconstruction, compaction)
// goes through it, so there is exactly one definition of "what an event looks like to a model".
import type { Message } from "../messages/index.js";
import type { AnySessionEvent, SessionEvent, SurfaceEventType } from "./types.js";
import { SURFACE_EVENT_TYPES } from "./types.js";

const SURFACE_TYPES: ReadonlySet<string> = new Set(SURFACE_EVENT_TYPES);

/** True for the event types that take part in the surface (and so in derived history). */
export function isSurfaceEventType(type: string): type is SurfaceEventType {
  return SURFACE_TYPES.has(type);
}

/**
 * The message a surface event contributes to history, deep-frozen; `undefined` for events that
 * are not surface-eligible. The message shares the event's (frozen) content arrays: no copy.
 */
export function deriveEventMessage(event: SessionEvent): Message | undefined {
  const e = event as AnySessionEvent;
  switch (e.type) {
    case "user/message":
    case "context/message":
    case "steering/message":
      return Object.freeze({ role: "user", content: e.data.content });
    case "assistant/message":
      return Object.freeze({ role: "assistant", content: e.data.content });
    case "tool/result":
      return Object.freeze({
        role: "tool",
        content: Object.freeze([
          Object.freeze({
            type: "tool-result",
            callId: e.data.callId,
            content: e.data.content,
            isError: e.data.isError,
          }),
        ]) as readonly [never],
      });
    default:
      return undefined;
  }
}
