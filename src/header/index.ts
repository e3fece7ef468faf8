// Public API of the header layer (depends on json, messages, session types).
export { canonicalHeader, headerEquals, headerHash, headerKey } from "./canonical.js";
export { applyHeaderDelta, applySystemDelta, applyToolsDelta, diffHeader, diffSystem, diffTools } from "./delta.js";
export {
  foldHeaderEvent,
  foldLatestRequestHeader,
  foldRequestHeader,
  headerDeltaOf,
  snapshotHeaderOf,
} from "./fold.js";
export { decideHeaderRecord, type HeaderDecisionInput } from "./record.js";
export type {
  EpochHeader,
  HeaderDelta,
  HeaderErrorCode,
  HeaderRecord,
  RequestConfig,
  SystemDelta,
  ToolsDelta,
} from "./types.js";
export { HeaderError } from "./types.js";
export { validateEpochHeader, validateHeaderDelta } from "./validate.js";
export { HeaderWriter } from "./writer.js";
