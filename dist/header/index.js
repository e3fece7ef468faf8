// Public API of the header layer (depends on json, messages, session types).
export { canonicalHeader, headerEquals, headerHash, headerKey } from "./canonical.js";
export { applyHeaderDelta, applySystemDelta, applyToolsDelta, diffHeader, diffSystem, diffTools } from "./delta.js";
export { foldHeaderEvent, foldRequestHeader } from "./fold.js";
export { decideHeaderRecord } from "./record.js";
export { HeaderError } from "./types.js";
export { validateEpochHeader, validateHeaderDelta } from "./validate.js";
export { HeaderWriter } from "./writer.js";
//# sourceMappingURL=index.js.map