// Public API of the replay layer: re-run a stored session with the current code, the model and the
// outside world answering from the log, and compare every rebuilt request with the logged one.
export { replayLog, replaySession } from "./replay-session.js";
export { replayReportText, type ReportTextOptions } from "./report-text.js";
export { segmentLabel } from "./segments.js";
export { STOP_REASON } from "./replay-plugins.js";
export {
  type DiffSegment,
  type Explanation,
  type ReplayCacheCost,
  type ReplayChild,
  type ReplayedChild,
  ReplayError,
  type ReplayErrorCode,
  type ReplayOptions,
  type ReplayReport,
  type RequestDifference,
  type TurnNote,
} from "./types.js";
