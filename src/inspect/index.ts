// Public API of the inspect layer: the local web inspector's server and its session sources.
export { cacheReportOf, cacheReportText } from "./cache-view.js";
export { headerChanges } from "./header-view.js";
export { JsonlInspectSource, type JsonlInspectSourceOptions } from "./jsonl-source.js";
export type { LiveAppend } from "./live.js";
export { breakpointsOf, cliRequestsText, requestPayload } from "./request-view.js";
export { DEFAULT_ASSETS_DIR, type InspectServer, type InspectServerOptions, startInspectServer } from "./server.js";
export { StoreInspectSource, type StoreInspectSourceOptions, type WatchableStore } from "./store-source.js";
export { timelineRows } from "./timeline.js";
export * from "./types.js";
export { type Wire, WIRES, wireBody, wirePayload } from "./wire-payload.js";
