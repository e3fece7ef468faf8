// MCP vocabulary: how a server is reached (a spawned stdio command or a Streamable HTTP URL),
// the plugin's options, what a connected server reports, and the layer's error.
import type { PermissionPolicy } from "../builtin-tools/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { SandboxMode, SandboxOptions } from "../sandbox/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { KeelsonError } from "../errors/index.js";
import type { Provider } from "../llm/core.js";
import type { SampledRequest } from "../session/index.js";

/** A server Keelson spawns and talks to over its stdin/stdout. */
export interface McpStdioServer {
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * Added to the child's environment, which otherwise holds only the SDK's safe defaults
   * (HOME, PATH, SHELL, TERM, USER, LOGNAME) — never Keelson's own variables or keys.
   */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /**
   * Run the server in the sandbox (src/sandbox), as `bash` runs: a mode or options, resolved
   * against the server's `cwd` (else the agent's). Absent: the server runs unconfined, as
   * before. Where the sandbox cannot start, a sandboxed server is not started
   * (`connect-failed`). Its policy is appended to the description of each of its tools.
   */
  readonly sandbox?: SandboxMode | SandboxOptions;
}

/** A server reached over Streamable HTTP. `headers` go with every request (e.g. authorization). */
export interface McpHttpServer {
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * OAuth settings of Keelson's own client (used when the plugin has `auth`): a pre-registered
   * client (`clientId`, `clientSecret` — no dynamic registration then), the scope to ask for when
   * the server names none, a client ID metadata document URL (SEP-991).
   */
  readonly oauth?: McpOAuthSettings;
  /**
   * Code only: the application's own OAuth client (the SDK's `OAuthClientProvider`, e.g. its
   * `ClientCredentialsProvider`), used instead of Keelson's for this server.
   */
  readonly authProvider?: OAuthClientProvider;
}

export interface McpOAuthSettings {
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly scope?: string;
  readonly clientMetadataUrl?: string;
}

/**
 * A server the application reaches through its own SDK transport (code only): e.g. one end of
 * `InMemoryTransport.createLinkedPair()` whose other end an in-process `McpServer` holds.
 * Called once per agent that loads the plugin.
 */
export interface McpTransportServer {
  readonly transport: () => Transport | Promise<Transport>;
}

export type McpServerConfig = McpStdioServer | McpHttpServer | McpTransportServer;

export interface McpToolsOptions {
  /** Servers by name; the name becomes the `mcp__<server>__` prefix of their tools. */
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  /** Per-call timeout of every MCP tool (ms). Default: the agent's `toolTimeoutMs` (120 s). */
  readonly timeoutMs?: number;
  /** How long a server may take to connect and answer `initialize` and `tools/list` (ms). Default 30 000. */
  readonly initTimeoutMs?: number;
  /**
   * The same policy the built-in writes use (src/builtin-tools): every MCP call is gated.
   * Default `{ mode: 'deny' }`. `allow` may name a tool (`mcp__srv__tool`), a server (`mcp__srv`)
   * or every MCP tool (`mcp`).
   */
  readonly permissions?: PermissionPolicy;
  /** Characters of a result's text before the truncation marker. Default 30 000 (the built-ins' cap). */
  readonly outputCap?: number;
  /**
   * Decoded bytes of images one result may carry; an image past it is replaced by a text note
   * saying its size and the limit. Default 5 MiB (5 242 880).
   */
  readonly imageCap?: number;
  /**
   * Told about things worth a line to a person: a tool in the resumed log that no server offers
   * any more (dropped from the request), a server that exited.
   */
  readonly onNotice?: (text: string) => void;
  /**
   * OAuth 2.1 for HTTP servers (src/mcp/README.md, "Authorization"): where tokens are kept, and
   * — for an interactive login — how a person is sent to the authorization URL. Without it a
   * server answering 401 is `McpError('unauthorized')`.
   */
  readonly auth?: McpAuthOptions;
  /**
   * Offer elicitation (`elicitation/create`, form mode) to the servers: a server's question
   * during a call becomes a logged `input/request` the agent's live answerer, or later
   * `agent.respond`, answers. Default: when the agent can answer (`agent.answersQuestions`: a
   * store to pause into, or a live answerer).
   */
  readonly elicitation?: boolean;
  /**
   * The first delay (ms) between reconnections in a row of a server whose connection closed by
   * itself; it doubles each time, up to 16 times this. Default 250. At most 5 in a row.
   */
  readonly reconnectDelayMs?: number;
  /**
   * The directories servers may work in (MCP roots, as `file://` URIs). Default: the agent's
   * workspace — its session's cwd, else the process's. `false`: no roots capability.
   * `plugin.setRoots(agent, dirs)` changes them (servers are told).
   */
  readonly roots?: readonly string[] | false;
  /**
   * Offer sampling (`sampling/createMessage`) to the servers: a server may ask, during one of its
   * tool calls, for a completion from the agent's provider — approved by a person first, logged
   * as its own request (`mcp/sampling-request` / `mcp/sampling-response`), never part of the
   * session's history. `true` takes the defaults. Default: not offered.
   */
  readonly sampling?: McpSamplingOptions | boolean;
}

/** Sampling for MCP servers (src/mcp/README.md, "Sampling"; decision 0026). */
export interface McpSamplingOptions {
  /** The most tokens one completion may produce: a server's `maxTokens` is capped to it. Default 1 024. */
  readonly maxTokens?: number;
  /** Sampling requests one tool call may make; later ones are refused (the provider is not asked). Default 3. */
  readonly maxRequestsPerCall?: number;
  /** The provider that answers. Default: the agent's. */
  readonly provider?: Provider;
  /** The model asked. Default: the agent's (`agent.model`); a server's `modelPreferences` are ignored. */
  readonly model?: string;
  /**
   * Ask a person before each request reaches the provider (a question through the call's
   * `ToolContext.ask`: the agent's answerer, `input/ask`, or later `agent.respond`). Default true.
   */
  readonly needsApproval?: boolean;
  /**
   * A live approver asked first: `true` approves, `false` denies (both logged as the question's
   * answer, `by: "sampling.approve"`), `undefined` leaves the question to the agent's answerers.
   */
  readonly approve?: (request: McpSamplingApproval) => boolean | undefined | Promise<boolean | undefined>;
}

/** A sampling request awaiting approval: who asks, during which call, and the request the provider would get. */
export interface McpSamplingApproval {
  readonly server: string;
  /** The Keelson tool name of the call (`mcp__<server>__<tool>`). */
  readonly tool: string;
  readonly callId: string;
  readonly request: SampledRequest;
}

/** Keelson's OAuth client for HTTP servers. */
export interface McpAuthOptions {
  /** Where client registrations and tokens are kept (`fileAuthStore(dir)`: files of mode 0600). */
  readonly store: McpAuthStore;
  /**
   * An interactive login: called with the authorization URL (after discovery, registration and
   * PKCE); resolves with the authorization code the redirect carried. Without it a server that
   * needs a new authorization is `McpError('unauthorized')` naming `keelson mcp login`, and
   * only refreshes happen unattended.
   */
  readonly authorize?: (url: URL, server: string) => Promise<string>;
  /** The redirect URI registered and sent (the login's 127.0.0.1 callback). Default `http://127.0.0.1/callback`. */
  readonly redirectUrl?: string;
  /** `client_name` in a dynamic registration. Default `keelson`. */
  readonly clientName?: string;
}

/** What Keelson keeps for one server's authorization: never logged, never in a header or span. */
export interface McpAuthRecord {
  /** The server URL the record is for (origin + path). */
  readonly url: string;
  readonly client?: Readonly<Record<string, unknown>>;
  readonly tokens?: Readonly<Record<string, unknown>>;
  /** Epoch ms of the last token save (with `tokens.expires_in`, when they expire). */
  readonly savedAt?: number;
}

/** Storage of authorization records by server URL (`fileAuthStore`, or the application's own). */
export interface McpAuthStore {
  load(url: string): Promise<McpAuthRecord | undefined>;
  save(record: McpAuthRecord): Promise<void>;
  /** True when a record was removed. */
  delete(url: string): Promise<boolean>;
}

/** A connected server as the application sees it. */
export interface McpServerInfo {
  readonly name: string;
  readonly transport: "stdio" | "http" | "in-process";
  /** The stdio child's pid (undefined over HTTP or once it exited). */
  readonly pid: number | undefined;
  /** Keelson names of the tools it offers now, sorted. */
  readonly tools: readonly string[];
  /** False once the connection closed (the child exited, the HTTP session ended). */
  readonly connected: boolean;
}

export type McpErrorCode =
  | "invalid-config"
  | "connect-failed"
  | "init-timeout"
  | "name-collision"
  | "not-loaded"
  | "sdk-missing"
  | "list-failed"
  | "answer-too-large"
  | "unauthorized"
  | "forbidden"
  | "session-expired";

/**
 * A server that could not be reached or answered too late (naming the server, never its env or
 * headers), two tools that map to the same Keelson name, or a bad configuration (naming the file
 * and key).
 */
export class McpError extends KeelsonError<McpErrorCode> {
  /** The configured server's name, when the error is about one server (connecting, listing, calling). */
  readonly server: string | undefined;
  constructor(
    code: McpErrorCode,
    message: string,
    options: { readonly server?: string; readonly cause?: unknown } = {},
  ) {
    super(code, message, options);
    this.server = options.server;
  }
}

export function isHttpServer(config: McpServerConfig): config is McpHttpServer {
  return typeof (config as McpHttpServer).url === "string";
}

export function isTransportServer(config: McpServerConfig): config is McpTransportServer {
  return typeof (config as McpTransportServer).transport === "function";
}

/** How a server is named in messages: its transport and command or URL (no args, env, headers or query). */
export function describeServer(name: string, config: McpServerConfig): string {
  if (isHttpServer(config)) {
    let where = config.url;
    try {
      const url = new URL(config.url);
      where = `${url.origin}${url.pathname}`;
    } catch {
      // an invalid URL is reported by the connection; show it as given
    }
    return `MCP server "${name}" (http ${where})`;
  }
  if (isTransportServer(config)) return `MCP server "${name}" (in-process transport)`;
  return `MCP server "${name}" (stdio ${config.command})`;
}
