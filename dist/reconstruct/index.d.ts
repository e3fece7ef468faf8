export { composeRequest } from "./compose.js";
export { reconstructRequests } from "./reconstruct.js";
export type { LogIssue, LogReport, ReconstructedRequest, ReconstructErrorCode } from "./types.js";
export { ReconstructError } from "./types.js";
export { verifyLog } from "./verify.js";
