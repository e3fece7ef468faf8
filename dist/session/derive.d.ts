import type { Message } from "../messages/index.js";
import type { SessionEvent, SurfaceEventType } from "./types.js";
/** True for the event types that take part in the surface (and so in derived history). */
export declare function isSurfaceEventType(type: string): type is SurfaceEventType;
/**
 * The message a surface event contributes to history, deep-frozen; `undefined` for events that
 * are not surface-eligible. The message shares the event's (frozen) content arrays: no copy.
 */
export declare function deriveEventMessage(event: SessionEvent): Message | undefined;
