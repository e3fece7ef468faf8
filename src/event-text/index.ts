// Public API of the event-text layer (depends on messages, session, header): every logged event
// in words, from one exhaustive table.
export { EVENT_LINES, eventLine } from "./event-lines.js";
export type { EventKind, EventLine, EventLineOf, EventView } from "./types.js";
