export { type Compaction, createCompaction } from "./compactor.js";
export { measurePressure, type PressureInput } from "./pressure.js";
export { prunedContent, pruneCandidates } from "./prune.js";
export { chooseRegion, type Region } from "./region.js";
export { CHECKPOINT_OPEN, summarize } from "./summarize.js";
export { CompactionError, type CompactionErrorCode, type CompactionOptions, type Pressure } from "./types.js";
