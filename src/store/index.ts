// Public API of the store layer (depends on session).
export {
  type DecodedLog,
  decodeHeaderLine,
  decodeMetaLine,
  decodeLog,
  FORMAT as JSONL_FORMAT,
  firstInvalidUtf8Line,
  newerLogError,
  type SplitLog,
  splitLog,
} from "./jsonl-codec.js";
export { type JsonlStoreOptions, JsonlSessionStore } from "./jsonl-store.js";
export { forwardCommits } from "./forward-commits.js";
export {
  listPendingApprovals,
  type PendingApprovalsList,
  type StoredApproval,
  type StoredInput,
} from "./pending-approvals.js";
export { type SessionPauses, type SessionReader, sessionPauses, storeReader } from "./session-pauses.js";
export { INDEX_DIR as SESSION_INDEX_DIR, INDEX_FILE as SESSION_INDEX_FILE } from "./session-index-file.js";
export type { ListedLog, SessionDigest } from "./session-index.js";
export type { LogChanges } from "./session-index-changes.js";
export { type LogChangesOptions, listLogChangesAt } from "./listing.js";
export { moreRecent } from "./session-index-latest.js";
export { MAX_LOG_BYTES, type ReadLogOptions, readLogFile } from "./read-log-file.js";
export type { StoreFileSystem } from "./store-file-system.js";
export type {
  LoadedSession,
  LoadOptions,
  SessionPersistence,
  SessionStore,
  SessionSummary,
  StoreErrorCode,
} from "./types.js";
export { StoreError } from "./types.js";
