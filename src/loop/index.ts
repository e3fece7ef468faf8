// Public API of the loop layer (depends on every layer above it).
export { createAgent } from "./agent.js";
export { checkedAnswer, pendingInput, pendingRequest } from "./approval-decision.js";
export { answerLists } from "./answer-batch-check.js";
export {
  type AgentPauses,
  type AnswerBatch,
  type AnswerStreamOptions,
  type CallDecision,
  type QuestionReply,
  type ApprovalAnswer,
  type ApprovalAskPayload,
  type ApprovalDecidePayload,
  type ApprovalDecision,
  ApprovalError,
  type ApprovalErrorCode,
  type ApprovalHooks,
  type ApprovalVerdict,
  type Approver,
  type Answerer,
  type InputAnswer,
  type InputAskPayload,
  InputError,
  type InputErrorCode,
  type InputReply,
  type PendingApproval,
  type PendingInput,
} from "./approval-types.js";
export { globalHooks, globalPrompt } from "./global.js";
export { namedPlugin } from "./plugin-name.js";
export { freezePrefix } from "./prefix.js";
export { promptContent, promptOverWindow } from "./prompt-content.js";
export { checkStreamOptions, signalReason } from "./stream-options.js";
export {
  type AgentProfile,
  type ProfileAgentOptions,
  type ProfileContext,
  profileAgentOptions,
  profileProblem,
} from "./profile.js";
export { buildRequest, checkInvariant, isLoopBuilt, loggedPartOf } from "./request.js";
export { type ForkAgentOptions, forkAgent, resumeAgent } from "./resume.js";
export { type RetryPolicy, retryDelay } from "./retry.js";
export { type SubagentAgentOptions, type SubagentToolOptions, subagentSpecOf, subagentTool } from "./subagent-tool.js";
export { narrowTools } from "./subagent-child.js";
export type {
  Agent,
  AgentErrorPayload,
  AgentHooks,
  AgentOptions,
  AgentOutput,
  AgentPlugin,
  AgentPluginHost,
  AgentStatus,
  CompactionGate,
  FollowFeed,
  FollowOptions,
  LlmChunkPayload,
  LlmStreamPayload,
  LoopErrorCode,
  OutputOptions,
  PreStepPayload,
  PrefixDriftPayload,
  PromptDecision,
  PromptInput,
  PromptSubmitPayload,
  RequestPayload,
  SendOptions,
  SessionEventPayload,
  SessionPrefixPayload,
  StatusPayload,
  StreamOptions,
  ToolSetPayload,
  TurnOutcome,
  TurnStream,
} from "./types.js";
export {
  type BlockEndEvent,
  COMMITTED_TURN_EVENT_TYPES,
  type CommittedTurnEvent,
  committedTurnEvent,
  DELTA_TURN_EVENT_TYPES,
  isBlockEnd,
  isCommittedTurnEvent,
  type LiveTurnEvent,
  liveBlockId,
  loopCallId,
  type SubagentTurnEvent,
  type ToolProgressEvent,
  type TurnEvent,
  type TurnEventType,
} from "./turn-events.js";
export { followPositionFault, type FollowPositionFault } from "./follow-position.js";
export { DEFAULT_MAX_BUFFERED_CHARS, type FeedEnd, type FeedSource, TurnFeed } from "./turn-feed.js";
export { LoopError } from "./types.js";
export { DEFAULT_REPAIR } from "./turn-output.js";
export { AskingCalls, withCallFrom } from "./asking-calls.js";
