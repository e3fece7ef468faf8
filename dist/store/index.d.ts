export { decodeHeaderLine, FORMAT as JSONL_FORMAT, firstInvalidUtf8Line, type SplitLog, splitLog, } from "./jsonl-codec.js";
export { type JsonlStoreOptions, JsonlSessionStore, type StoreFileSystem } from "./jsonl-store.js";
export { persistSession } from "./persist.js";
export type { LoadedSession, LoadOptions, SessionPersistence, SessionStore, SessionSummary, StoreErrorCode, } from "./types.js";
export { StoreError } from "./types.js";
