// The MCP SDK, loaded on first use: `import "keelson"` never loads it (it is heavy — express,
// hono, ajv…), and an agent without MCP servers never does either. One load per process.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "./types.js";

export interface McpSdk {
  readonly Client: typeof Client;
  readonly StdioClientTransport: typeof StdioClientTransport;
  readonly StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  readonly ToolListChangedNotificationSchema: typeof ToolListChangedNotificationSchema;
}

let loading: Promise<McpSdk> | undefined;

/** The SDK's client pieces; rejects with `McpError('sdk-missing')` when the package cannot be loaded. */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]).then(
    ([client, stdio, http, types]) => ({
      Client: client.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
    }),
    (cause: unknown) => {
      loading = undefined;
      throw new McpError(
        "sdk-missing",
        `the MCP client (@modelcontextprotocol/sdk) cannot be loaded: ${cause instanceof Error ? cause.message : String(cause)}`,
        { cause },
      );
    },
  );
  return loading;
}
