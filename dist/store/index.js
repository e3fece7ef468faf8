// Public API of the store layer (depends on session).
export { decodeHeaderLine, FORMAT as JSONL_FORMAT, firstInvalidUtf8Line, splitLog, } from "./jsonl-codec.js";
export { JsonlSessionStore } from "./jsonl-store.js";
export { persistSession } from "./persist.js";
export { StoreError } from "./types.js";
//# sourceMappingURL=index.js.map