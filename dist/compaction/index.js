// Public API of the compaction layer (depends on session, llm, loop types, json).
export { createCompaction } from "./compactor.js";
export { measurePressure } from "./pressure.js";
export { prunedContent, pruneCandidates } from "./prune.js";
export { chooseRegion } from "./region.js";
export { CHECKPOINT_OPEN, summarize } from "./summarize.js";
export { CompactionError } from "./types.js";
//# sourceMappingURL=index.js.map