// Public API of the session layer (depends on json, messages).
export {
  type ApprovalLog,
  type ApprovalStatus,
  approvalStatus,
  inputStatus,
  type PendingApproval,
  type PendingInput,
  type WaitingCall,
} from "./approvals.js";
export { compactSummaryOf } from "./compact-summary.js";
export { deriveEventMessage, isSurfaceEventType } from "./derive.js";
export {
  isSafeSessionId,
  LOG_VERSION,
  newerLogVersion,
  unknownEventFeature,
  validateEnvelope,
  validateSessionHeader,
  validateSessionMeta,
  validateSurfaceOp,
} from "./envelope.js";
export { SessionError, type SessionErrorCode } from "./errors.js";
export { isEventOf, isEventType, validateEventData } from "./event-data.js";
export { epochHeaderProblem, headerDeltaProblem } from "./header-payload.js";
export { type ForkOptions, forkSeed, forkSession } from "./fork.js";
export { isPairingBalanced, type PairingBalance, toolPairingBalance } from "./pairing.js";
export { type CloserOptions, crashRepairClosers } from "./repair.js";
export { type NewSessionInit, Session, type SessionObserver, type SessionOptions } from "./session.js";
export { type ApprovalState, type InputState, LogStructure, type OpenCall } from "./structure.js";
export { type ChildState, checkSubagents, childStateOf, type SubagentProblem } from "./subagent-check.js";
export { type SubagentLink, subagentLinks, subagentOfResult, subagentSessionId } from "./subagent-links.js";
export { Surface, type SurfaceNode } from "./surface.js";
export type {
  AnySessionEvent,
  CompactSummaryFacts,
  EventDataMap,
  EventType,
  HeaderSnapshotReason,
  PendingEvent,
  ReplaceOp,
  SampledRequest,
  SessionEvent,
  SessionHeader,
  SessionMeta,
  SpawnedBy,
  SurfaceEventType,
  SurfaceOp,
  TurnEndReason,
  Usage,
} from "./types.js";
export { SURFACE_EVENT_TYPES } from "./types.js";
