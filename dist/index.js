// Keelson's public API: what an application uses — agents, tools, providers, stores, plugins,
// compaction, the emulator, and the log's read and verify functions, with the types they take
// and return. Importing it loads no provider SDK and no tokenizer (they load on first use).
// Each layer's internals stay on its subpath (`keelson/session`, `keelson/header`, …).
// Agents: the loop.
export { createAgent, forkAgent, globalHooks, globalPrompt, LoopError, resumeAgent, } from "./loop/index.js";
// Tools.
export { defineTool, jsonSchema, ToolError, } from "./tools/index.js";
export { builtinTools, ToolFailure, } from "./builtin-tools/index.js";
// Session-prefix contributors and compaction.
export { ContextError, skillsCatalog, workspaceBaseline, workspaceInstructions, } from "./context/index.js";
export { CompactionError, createCompaction } from "./compaction/index.js";
// Providers.
export { AnthropicProvider, DEFAULT_MODELS, ModelRegistry, OpenAICompatibleProvider, ProviderError, ScriptedProvider, } from "./llm/index.js";
export { startEmulator } from "./emulator/index.js";
// Stores.
export { keelsonHome } from "./home/index.js";
export { JsonlSessionStore, StoreError, } from "./store/index.js";
// The log: sessions, reconstruction, verification, cache audit.
export { Session, SessionError, } from "./session/index.js";
export { HeaderError } from "./header/index.js";
export { ReconstructError, reconstructRequests, verifyLog, } from "./reconstruct/index.js";
export { cacheReport } from "./audit/index.js";
export { MessageShapeError } from "./messages/index.js";
export { JsonError } from "./json/index.js";
export { isKeelsonError, KeelsonError } from "./errors/index.js";
//# sourceMappingURL=index.js.map