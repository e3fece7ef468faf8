// Public API of the reconstruct layer (depends on header, session, messages, json).
export { composeRequest } from "./compose.js";
export { AFTER_DISPATCH, reconstructRequests } from "./reconstruct.js";
export type { HistoryView, LogIssue, LogReport, ReconstructedRequest, ReconstructErrorCode } from "./types.js";
export { ReconstructError } from "./types.js";
export { verifyLog } from "./verify.js";
