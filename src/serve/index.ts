// Public API of the serve layer (`keelson/serve`): the front door's wire formats — the AI SDK's
// UI message stream, plain SSE and its reader, UIMessages from the log, a client's log position.
// Depends on errors, json, messages, session and loop (README.md).
export {
  type ChatAnswers,
  type ChatDecision,
  type ChatPrompt,
  type ChatRequest,
  type ChatRequestOptions,
  type ChatResponse,
  type PendingRequests,
  parseChatRequest,
} from "./chat-request.js";
export {
  type FollowFromOptions,
  followFrom,
  type OpenTurnFromOptions,
  type OpenTurnLog,
  openTurnFrom,
  type PositionRequest,
} from "./follow-position.js";
export { DEFAULT_MAX_BODY_BYTES, type JsonBodyOptions, readJsonBody } from "./json-body.js";
export { DEFAULT_KEEP_ALIVE_MS, type KeepAliveOptions } from "./keep-alive.js";
export { type ReadSSEOptions, readSSE, type SSEEventReader } from "./sse-reader.js";
export {
  isClientTurnEvent,
  pipeSSE,
  SSE_ERROR_EVENT,
  SSE_HEADERS,
  type SSEOptions,
  sseResponse,
  toSSE,
  wireTurnEvent,
} from "./sse-stream.js";
export { type EncodeOptions, type ResponseOptions, ServeError, type ServeErrorCode } from "./types.js";
export { UIMessageEncoder } from "./ui-encoder.js";
export type { UIEncoderOptions } from "./ui-encoder-options.js";
export {
  pipeUIMessageStream,
  toUIMessageStream,
  type UIMessageBodyOptions,
  type UIMessageStreamOptions,
  uiMessageStreamBody,
  uiMessageStreamResponse,
} from "./ui-message-stream.js";
export { type UIMessagesOptions, uiMessagesFromLog } from "./ui-messages.js";
export type { QueuedAnswer, QueuedApprovalAnswer, QueuedQuestionAnswer } from "./ui-queued-answers.js";
export type { QueuedPrompt } from "./ui-queued-prompts.js";
export type { MessageMetadata, MetadataObject } from "./ui-metadata.js";
export { MAX_ERROR_TEXT, type ToolContentOutput, toolOutput } from "./ui-parts.js";
export { type AnswerableMessage, lastAssistantMessageIsCompleteWithAnswers } from "./ui-send-when.js";
export { subagentPartId } from "./ui-subagent.js";
export {
  type SubagentLog,
  type SubagentLogs,
  type SubagentReader,
  subagentLogs,
  subagentToolParts,
} from "./ui-subagent-log.js";
export {
  type AskedQuestion,
  type KeelsonCallMetadata,
  type KeelsonData,
  type QuestionCallMetadata,
  type ToolProgressData,
  type SubagentCallMetadata,
  UI_MESSAGE_STREAM_HEADERS,
  type UIFinishReason,
  type UIFilePart,
  type UIMessage,
  type UIMessageChunk,
  type UIMessageChunkType,
  type UIMessagePart,
  type UIReasoningPart,
  type UIStepStartPart,
  type UITextPart,
  type UIToolPart,
} from "./ui-types.js";
