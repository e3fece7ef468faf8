import { SURFACE_EVENT_TYPES } from "./types.js";
const SURFACE_TYPES = new Set(SURFACE_EVENT_TYPES);
/** True for the event types that take part in the surface (and so in derived history). */
export function isSurfaceEventType(type) {
    return SURFACE_TYPES.has(type);
}
/**
 * The message a surface event contributes to history, deep-frozen; `undefined` for events that
 * are not surface-eligible. The message shares the event's (frozen) content arrays: no copy.
 */
export function deriveEventMessage(event) {
    const e = event;
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
                ]),
            });
        default:
            return undefined;
    }
}
//# sourceMappingURL=derive.js.map