// The MCP SDK (an optional peer dependency), loaded on first use: `import "keelson"` never loads
// it (it is heavy — express, hono, ajv…), and an agent without MCP servers never does either.
// One load per process; a missing package is a MissingPackageError naming it.
import { errorMessage, loadOptionalPackage, MissingPackageError } from "../errors/index.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  JSONRPCMessage,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { McpError } from "./types.js";

export interface McpSdk {
  readonly Client: typeof Client;
  /** The SDK's safe default environment of a stdio child (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
  readonly defaultEnvironment: () => Record<string, string>;
  /** One stdio line to a JSON-RPC message (validated) and back. */
  readonly deserializeMessage: (line: string) => JSONRPCMessage;
  readonly serializeMessage: (message: JSONRPCMessage) => string;
  readonly StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  readonly ToolListChangedNotificationSchema: typeof ToolListChangedNotificationSchema;
  readonly ElicitRequestSchema: typeof ElicitRequestSchema;
  readonly CreateMessageRequestSchema: typeof CreateMessageRequestSchema;
  readonly ListRootsRequestSchema: typeof ListRootsRequestSchema;
}

let loading: Promise<McpSdk> | undefined;

const PURPOSE = "MCP servers (mcpTools, .keelson/mcp.json)";
const load = <T>(subpath: string): Promise<T> =>
  loadOptionalPackage<T>(`@modelcontextprotocol/sdk/${subpath}`, PURPOSE);

/**
 * The SDK's client pieces. Rejects with a MissingPackageError when the package is not installed
 * (an optional peer dependency), with `McpError('sdk-missing')` when it is but cannot be loaded.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    load<typeof import("@modelcontextprotocol/sdk/client/index.js")>("client/index.js"),
    load<typeof import("@modelcontextprotocol/sdk/client/stdio.js")>("client/stdio.js"),
    load<typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js")>("client/streamableHttp.js"),
    load<typeof import("@modelcontextprotocol/sdk/types.js")>("types.js"),
    load<typeof import("@modelcontextprotocol/sdk/shared/stdio.js")>("shared/stdio.js"),
  ]).then(
    ([client, stdio, http, types, lines]) => ({
      Client: client.Client,
      defaultEnvironment: stdio.getDefaultEnvironment,
      deserializeMessage: lines.deserializeMessage,
      serializeMessage: lines.serializeMessage,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
      ElicitRequestSchema: types.ElicitRequestSchema,
      CreateMessageRequestSchema: types.CreateMessageRequestSchema,
      ListRootsRequestSchema: types.ListRootsRequestSchema,
    }),
    (cause: unknown) => {
      loading = undefined;
      if (cause instanceof MissingPackageError) throw cause;
      throw new McpError(
        "sdk-missing",
        `the MCP client (@modelcontextprotocol/sdk) cannot be loaded: ${errorMessage(cause)}`,
        { cause },
      );
    },
  );
  return loading;
}
