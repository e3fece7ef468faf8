// MCP (client side): the tools of Model Context Protocol servers — spawned over stdio or reached
// over Streamable HTTP — as ordinary Keelson tools, through the `mcpTools()` plugin. The SDK is
// loaded only when an agent with the plugin starts; `import "keelson"` never loads it.
export { type McpConfig, loadMcpConfig, mcpConfigFiles, readMcpConfigFile } from "./config-file.js";
export {
  DEFAULT_MCP_INIT_TIMEOUT_MS,
  type McpServerStatus,
  type McpToolsPlugin,
  mcpPrompt,
  mcpPrompts,
  mcpServers,
  mcpTools,
} from "./plugin.js";
export { authUrl, fileAuthStore, memoryAuthStore } from "./auth-store.js";
export { DEFAULT_LOGIN_TIMEOUT_MS, type McpLoginOptions, mcpLogin, mcpLogout } from "./login.js";
export { DEFAULT_SAMPLING_MAX_TOKENS, DEFAULT_SAMPLING_REQUESTS_PER_CALL } from "./sampling.js";
export { checkServers } from "./server-config.js";
export { mcpServerPrefix, mcpToolName } from "./tool-name.js";
export {
  type McpAuthOptions,
  type McpAuthRecord,
  type McpAuthStore,
  McpError,
  type McpErrorCode,
  type McpOAuthSettings,
  type McpSamplingApproval,
  type McpSamplingOptions,
  type McpHttpServer,
  type McpServerConfig,
  type McpServerInfo,
  type McpStdioServer,
  type McpToolsOptions,
  type McpTransportServer,
} from "./types.js";
