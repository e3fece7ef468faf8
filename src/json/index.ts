// Public API of the json layer (depends on nothing).
export { canonicalEquals, canonicalJson, jsonEquals } from "./canonical.js";
export { adoptParsedJson } from "./adopt.js";
export { deepFreeze, isDeepFrozen, markDeepFrozen } from "./freeze.js";
export { contentHash } from "./hash.js";
export { type SnapshotOptions, snapshotJson } from "./snapshot.js";
export type { JsonArray, JsonErrorCode, JsonObject, JsonPrimitive, JsonValue } from "./types.js";
export { JsonError, MAX_JSON_DEPTH } from "./types.js";
export { previewJson, previewName } from "./preview.js";
