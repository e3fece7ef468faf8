import type { EventType, SessionEvent } from "./types.js";
/** A value as it appears in an error message (bounded: a hostile log can hold megabytes). */
export declare function show(v: unknown): string;
/** Narrows a logged event to one type (its `data` is then typed). */
export declare function isEventOf<T extends EventType>(event: SessionEvent, type: T): event is SessionEvent<T>;
/** True when `type` names an event in the vocabulary. */
export declare function isEventType(type: unknown): type is EventType;
/** Validates `data` as the payload of `type`; throws `SessionError('invalid-data')` naming the field. */
export declare function validateEventData(type: EventType, data: unknown, seq?: number): void;
