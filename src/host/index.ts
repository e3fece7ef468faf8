// Public API of the host layer (`keelson/host`): many sessions in one process, one running turn
// per session, open-or-create by id, idle eviction, draining close (README.md). Depends on
// errors, json, messages, session, store and loop.
export { createAgentHost } from "./agent-host.js";
export { systemClock } from "./host-clock.js";
export { DEFAULT_PROFILE } from "./host-profiles.js";
export {
  type AgentHost,
  type AgentHostOptions,
  type HostClock,
  type HostCloseOptions,
  HostError,
  type HostErrorCode,
  type HostFollowOptions,
  type HostPending,
  type HostPrompt,
  type HostPromptOptions,
  type HostStats,
  type HostStreamOptions,
} from "./types.js";
