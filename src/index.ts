// Keelson's public API: what an application uses — agents, tools, providers, stores, plugins,
// compaction, the emulator, and the log's read and verify functions, with the types they take
// and return. Importing it loads no provider SDK and no tokenizer (they load on first use).
// Each layer's internals stay on its subpath (`keelson/session`, `keelson/header`, …).

// Agents: the loop.
export {
  type Agent,
  type AnswerBatch,
  type AnswerStreamOptions,
  type CallDecision,
  type QuestionReply,
  type ApprovalAskPayload,
  type ApprovalDecidePayload,
  type ApprovalDecision,
  ApprovalError,
  type ApprovalErrorCode,
  type ApprovalVerdict,
  type Approver,
  type Answerer,
  type InputAnswer,
  InputError,
  type InputErrorCode,
  type PendingApproval,
  type PendingInput,
  type AgentErrorPayload,
  type AgentHooks,
  type AgentOptions,
  type AgentOutput,
  type AgentPlugin,
  type AgentPluginHost,
  type AgentProfile,
  type AgentStatus,
  type CommittedTurnEvent,
  type CompactionGate,
  createAgent,
  type FollowOptions,
  type ForkAgentOptions,
  forkAgent,
  globalHooks,
  globalPrompt,
  isCommittedTurnEvent,
  type LiveTurnEvent,
  type LlmChunkPayload,
  type LlmStreamPayload,
  LoopError,
  type LoopErrorCode,
  type OutputOptions,
  type PreStepPayload,
  type PrefixDriftPayload,
  type PromptDecision,
  type ProfileContext,
  type PromptInput,
  type PromptSubmitPayload,
  type RequestPayload,
  type RetryPolicy,
  resumeAgent,
  type SendOptions,
  type SessionEventPayload,
  type SessionPrefixPayload,
  type StatusPayload,
  type StreamOptions,
  type SubagentAgentOptions,
  type SubagentToolOptions,
  type SubagentTurnEvent,
  subagentTool,
  type ToolProgressEvent,
  type ToolSetPayload,
  type TurnEvent,
  type TurnEventType,
  type TurnOutcome,
  type TurnStream,
} from "./loop/index.js";
export type { PromptAssemblePayload, PromptSection, PromptVars } from "./prompt/index.js";

// Structured output: `send(prompt, { output })`, and the output of a stored turn.
export {
  type OutputCheck,
  OutputError,
  type OutputErrorCode,
  type OutputOf,
  type OutputOfOptions,
  type OutputSchema,
  outputOf,
} from "./output/index.js";

// Tools.
export {
  type ApprovalContext,
  type ArgsOf,
  defineTool,
  type JsonSchemaInput,
  jsonSchema,
  type NeedsApproval,
  type PostExecuteDecision,
  type PostExecutePayload,
  type PreExecuteDecision,
  type PreExecutePayload,
  type StandardSchema,
  type ToolCallOutcome,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  type ToolErrorCode,
  type ToolInput,
  type ToolInvocation,
  type ToolOutput,
  type ToolRegistry,
  capToolResult,
  DEFAULT_MAX_TOOL_RESULT_CHARS,
} from "./tools/index.js";
export {
  askUserTool,
  type BuiltinToolName,
  type BuiltinToolsOptions,
  builtinTools,
  type MutatingToolName,
  type PermissionAnswer,
  type PermissionPolicy,
  type PermissionRequest,
  ToolFailure,
  type ToolFailureCode,
} from "./builtin-tools/index.js";

// The shell sandbox (bubblewrap; fail closed where it cannot start).
export {
  DEFAULT_HIDDEN_PATHS,
  describeSandbox,
  resolveSandbox,
  SandboxError,
  type SandboxErrorCode,
  type SandboxMode,
  type SandboxOptions,
  type SandboxPolicy,
  type SandboxSupport,
  sandboxSupport,
} from "./sandbox/index.js";

// Session-prefix contributors and compaction.
export {
  ContextError,
  type SkillsCatalogOptions,
  skillsCatalog,
  type WorkspaceBaselineOptions,
  type WorkspaceInstructionsOptions,
  workspaceBaseline,
  workspaceInstructions,
} from "./context/index.js";
export { type Compaction, CompactionError, type CompactionOptions, createCompaction } from "./compaction/index.js";
export {
  GEMINI_EXPLICIT_CACHE_MIN_TOKENS,
  type GeminiCacheConfig,
  geminiContextCache,
  type GeminiContextCacheEvent,
  type GeminiContextCacheOptions,
} from "./context-cache/index.js";

// Providers.
export {
  type AnthropicProviderOptions,
  AnthropicProvider,
  type AssistantResult,
  chooseModelFromEnv,
  DEFAULT_MODELS,
  type FinishReason,
  GeminiProvider,
  type GeminiProviderOptions,
  type ModelChoice,
  ModelChoiceError,
  type ModelInfo,
  type ModelPricing,
  ModelRegistry,
  type ModelRequest,
  type OpenAICompatibleOptions,
  OpenAICompatibleProvider,
  type OpenAIResponsesOptions,
  OpenAIResponsesProvider,
  type Provider,
  ProviderError,
  type ProviderNotice,
  type ProviderErrorCode,
  type ProviderFromEnv,
  type ProviderFromEnvOptions,
  providerFromEnv,
  type ProviderRequest,
  ScriptedProvider,
  type ScriptedReply,
  type ScriptedStep,
  type ScriptedToolCall,
  type StreamChunk,
  type ToolSchema,
} from "./llm/index.js";
export { type EmulatorOptions, type EmulatorServer, type RecordedRequest, startEmulator } from "./emulator/index.js";

// Stores.
export { keelsonHome } from "./home/index.js";
export {
  type JsonlStoreOptions,
  JsonlSessionStore,
  listPendingApprovals,
  type LoadedSession,
  type LoadOptions,
  type PendingApprovalsList,
  type SessionPersistence,
  type SessionStore,
  type SessionSummary,
  StoreError,
  type StoreErrorCode,
  type StoredApproval,
} from "./store/index.js";
// PostgreSQL: `pg` is loaded on the first connect, never by importing Keelson.
export {
  type MigrateResult,
  migrate,
  type PgPool,
  PostgresSessionStore,
  type PostgresStoreOptions,
  type PostgresTarget,
  SCHEMA_VERSION,
} from "./store/postgres/index.js";

// Serving many sessions in one process: the agent host.
export {
  type AgentHost,
  type AgentHostOptions,
  createAgentHost,
  type HostClock,
  HostError,
  type HostErrorCode,
  type HostFollowOptions,
  type HostPending,
  type HostPromptOptions,
  type HostStats,
  type HostStreamOptions,
} from "./host/index.js";

// Fleet: a PostgreSQL turn queue served by worker processes (`pg` loaded on first use).
export {
  awaitTurn,
  enqueueTurn,
  FleetClient,
  FleetError,
  migrateFleet,
  openFleetClient,
  rotateFollowKey,
  startWorker,
  type TurnRecord,
  type TurnStatus,
  type Worker,
  type WorkerOptions,
} from "./fleet/index.js";

// Integrations (plugins): MCP servers' tools and OpenTelemetry spans. Their SDKs load only when used.
export {
  loadMcpConfig,
  McpError,
  type McpErrorCode,
  type McpHttpServer,
  type McpSamplingApproval,
  type McpSamplingOptions,
  type McpServerConfig,
  type McpStdioServer,
  type McpToolsOptions,
  type McpToolsPlugin,
  mcpToolName,
  mcpTools,
} from "./mcp/index.js";
export { OtelError, type OtelTracingOptions, otelTracing } from "./otel/index.js";

// The front door: a turn on the wire (the AI SDK's UI message stream, plain SSE), the history as
// UIMessages, a reconnecting client's log position.
export {
  type ChatAnswers,
  type ChatPrompt,
  type ChatRequest,
  type ChatRequestOptions,
  followFrom,
  lastAssistantMessageIsCompleteWithAnswers,
  type OpenTurnFromOptions,
  type OpenTurnLog,
  openTurnFrom,
  parseChatRequest,
  pipeSSE,
  pipeUIMessageStream,
  readSSE,
  ServeError,
  type ServeErrorCode,
  sseResponse,
  toSSE,
  toUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  type UIMessageStreamOptions,
  uiMessageStreamResponse,
  uiMessagesFromLog,
} from "./serve/index.js";

// The log: sessions, reconstruction, verification, cache audit.
export {
  type AnySessionEvent,
  type ChildState,
  checkSubagents,
  type EventDataMap,
  type EventType,
  Session,
  SessionError,
  type SessionEvent,
  type SessionHeader,
  type SessionMeta,
  type SpawnedBy,
  type SubagentLink,
  subagentLinks,
  type SubagentProblem,
  subagentSessionId,
  type TurnEndReason,
} from "./session/index.js";
export { type EpochHeader, HeaderError, type RequestConfig } from "./header/index.js";
export {
  type LogIssue,
  type LogReport,
  type ReconstructedRequest,
  ReconstructError,
  reconstructRequests,
  verifyLog,
} from "./reconstruct/index.js";
export { type CacheReport, type CacheReportOptions, cacheReport, type RequestCacheLine } from "./audit/index.js";
// Replay: re-run a stored session with the current code and compare every rebuilt request (the
// test assertion is `expectReplayIdentical` in `keelson/testing`).
export {
  type DiffSegment,
  type ReplayCacheCost,
  ReplayError,
  type ReplayOptions,
  type ReplayReport,
  type RequestDifference,
  replayLog,
  replayReportText,
  replaySession,
} from "./replay/index.js";

// Messages, JSON values and errors.
export type {
  AssistantContent,
  AssistantMessage,
  ContentBlock,
  ImageBlock,
  Message,
  ReasoningBlock,
  TextBlock,
  ToolCallBlock,
  ToolMessage,
  ToolResultBlock,
  ToolResultPart,
  Usage,
  UserContent,
  UserMessage,
} from "./messages/index.js";
export { MessageShapeError } from "./messages/index.js";
export { JsonError, type JsonObject, type JsonValue } from "./json/index.js";
export {
  isKeelsonError,
  KeelsonError,
  loadOptionalPackage,
  MissingPackageError,
  type MissingPackageErrorCode,
} from "./errors/index.js";
