// One MCP server connection: spawn (stdio) or reach (Streamable HTTP) the server, initialize
// within a deadline, list its tools (every page), call them, learn when its tool list changes
// or the connection closes, and close it — for stdio, the child is ended (stdin closed, then
// SIGTERM, then SIGKILL: the SDK's close). A stdio child's stderr is kept as a short tail for
// error messages instead of being printed over the chat.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpSdk } from "./sdk.js";
import { describeServer, isHttpServer, isTransportServer, McpError, type McpServerConfig } from "./types.js";

const STDERR_TAIL = 2_000;
/** The longest a single request may wait in the SDK: the tool pipeline's own timeout and abort govern. */
const NO_SDK_TIMEOUT = 2_147_483_647;
const CLIENT_INFO = { name: "keelson", version: "0.1.0" };

export type McpTool = Tool;
export type McpCallResult = CallToolResult;

export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly transport: "stdio" | "http" | "in-process";
  /** Called when the server sends `notifications/tools/list_changed`. */
  onToolsChanged: (() => void) | undefined;
  /** Called once when the connection closes by itself (the child exited, the server went away). */
  onClosed: ((why: string) => void) | undefined;
  readonly #client: Client;
  readonly #transport: Transport;
  readonly #stdio: { readonly pid: number | null } | undefined;
  #pid: number | undefined;
  #stderr = "";
  #open = false;
  #closing: Promise<void> | undefined;

  private constructor(sdk: McpSdk, name: string, config: McpServerConfig, transport: Transport) {
    this.name = name;
    this.config = config;
    this.transport = isHttpServer(config) ? "http" : isTransportServer(config) ? "in-process" : "stdio";
    this.#client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
    this.#transport = transport;
    if (transport instanceof sdk.StdioClientTransport) {
      transport.stderr?.on("data", (chunk: Buffer) => {
        this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
      });
      this.#stdio = transport;
    }
    this.#client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      this.onToolsChanged?.();
    });
    this.#client.onclose = () => {
      const was = this.#open;
      this.#open = false;
      if (was && this.#closing === undefined)
        this.onClosed?.(`${this.describe()} closed the connection${this.#tail()}`);
    };
  }

  /**
   * Connects and initializes within `initTimeoutMs`. Rejects with `McpError`: `init-timeout`
   * (no answer to `initialize` in time) or `connect-failed` (spawn failed, refused, bad
   * handshake), naming the server; the transport is closed (a spawned child ended) either way.
   */
  static async open(sdk: McpSdk, name: string, config: McpServerConfig, initTimeoutMs: number): Promise<McpConnection> {
    let connection: McpConnection;
    try {
      connection = new McpConnection(sdk, name, config, await transportFor(sdk, config));
    } catch (cause) {
      throw new McpError("connect-failed", `${describeServer(name, config)} cannot be set up: ${message(cause)}`, {
        cause,
      });
    }
    await connection.#connect(initTimeoutMs);
    return connection;
  }

  async #connect(initTimeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new McpError(
              "init-timeout",
              `${this.describe()} did not answer initialize within ${initTimeoutMs} ms${this.#tail()}`,
            ),
          ),
        initTimeoutMs,
      );
    });
    try {
      await Promise.race([this.#client.connect(this.#transport, { timeout: initTimeoutMs }), deadline]);
      this.#open = true;
      this.#pid = this.#stdio?.pid ?? undefined;
    } catch (cause) {
      await this.close();
      if (cause instanceof McpError) throw cause;
      const timedOut = /timed out|timeout/i.test(message(cause));
      throw new McpError(
        timedOut ? "init-timeout" : "connect-failed",
        timedOut
          ? `${this.describe()} did not answer initialize within ${initTimeoutMs} ms${this.#tail()}`
          : `${this.describe()} could not be started or reached: ${message(cause)}${this.#tail()}`,
        { cause },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** The stdio child's pid while it runs (undefined over HTTP). */
  get pid(): number | undefined {
    return this.#open ? this.#pid : undefined;
  }

  get connected(): boolean {
    return this.#open;
  }

  describe(): string {
    return describeServer(this.name, this.config);
  }

  /** Every tool the server offers (all pages of `tools/list`). */
  async listTools(timeoutMs: number): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /** Calls `tool`; aborting `signal` cancels the request (the server gets `notifications/cancelled`). */
  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    if (!this.#open) throw new McpError("connect-failed", `${this.describe()} is not connected${this.#tail()}`);
    try {
      return (await this.#client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: NO_SDK_TIMEOUT,
      })) as McpCallResult;
    } catch (cause) {
      if (signal.aborted) throw cause;
      const closed = !this.#open || /connection closed/i.test(message(cause));
      throw new McpError(
        "connect-failed",
        closed
          ? `${this.describe()} closed the connection during the call (it may have crashed)${this.#tail()}`
          : `${this.describe()} failed the call: ${message(cause)}`,
        { cause },
      );
    }
  }

  /** Closes the connection (ends a stdio child); idempotent, resolves when the child has exited. */
  close(): Promise<void> {
    this.#open = false;
    this.#closing ??= this.#client.close().catch(() => this.#transport.close().catch(() => undefined));
    return this.#closing;
  }

  #tail(): string {
    const tail = this.#stderr.trim();
    return tail === "" ? "" : `; its stderr ends: ${tail.slice(-500)}`;
  }
}

async function transportFor(sdk: McpSdk, config: McpServerConfig): Promise<Transport> {
  if (isTransportServer(config)) return config.transport();
  if (isHttpServer(config))
    return new sdk.StreamableHTTPClientTransport(new URL(config.url), {
      ...(config.headers === undefined ? {} : { requestInit: { headers: { ...config.headers } } }),
    });
  return new sdk.StdioClientTransport({
    command: config.command,
    args: [...(config.args ?? [])],
    ...(config.env === undefined ? {} : { env: { ...config.env } }),
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    stderr: "pipe",
  });
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
