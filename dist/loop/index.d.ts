export { createAgent } from "./agent.js";
export { globalHooks, globalPrompt } from "./global.js";
export { freezePrefix } from "./prefix.js";
export { buildRequest, checkInvariant, isLoopBuilt, loggedPartOf } from "./request.js";
export { type ForkAgentOptions, forkAgent, resumeAgent } from "./resume.js";
export { type RetryPolicy, retryDelay } from "./retry.js";
export type { Agent, AgentHooks, AgentOptions, AgentPlugin, AgentPluginHost, AgentStatus, CompactionGate, LoopErrorCode, PromptDecision, PromptInput, TurnOutcome, } from "./types.js";
export { LoopError } from "./types.js";
