/** The event types that take part in the surface (and so in derived history). */
export const SURFACE_EVENT_TYPES = [
    "user/message",
    "context/message",
    "steering/message",
    "assistant/message",
    "tool/result",
];
//# sourceMappingURL=types.js.map