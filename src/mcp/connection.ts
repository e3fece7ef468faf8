// One MCP server connection: spawn (stdio, our own transport: stdio-transport.ts) or reach
// (Streamable HTTP) the server, initialize within a deadline, list its tools (bounded pages, one
// deadline for the whole listing), call them, learn when its tool list changes or the connection
// closes, and close it — for stdio, the child is ended (stdin closed, SIGTERM, SIGKILL) whatever
// it is doing, even before it answered `initialize`. A stdio child's stderr is kept as a short,
// redacted tail (stderr-tail.ts) for a person's messages; it never goes into a tool result.
import { errorMessage } from "../errors/index.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { SandboxPolicy } from "../sandbox/index.js";
import type { McpSdk } from "./sdk.js";
import { StderrTail } from "./stderr-tail.js";
import { OVERSIZE_ERROR_CODE, StdioTransport } from "./stdio-transport.js";
import {
  describeServer,
  isHttpServer,
  isTransportServer,
  McpError,
  type McpErrorCode,
  type McpServerConfig,
} from "./types.js";

/** The longest a single request may wait in the SDK: the tool pipeline's own timeout and abort govern. */
const NO_SDK_TIMEOUT = 2_147_483_647;
const CLIENT_INFO = { name: "keelson", version: "0.1.0" };
/** `tools/list` pages one listing may take, and tools it may hold. */
export const MAX_LIST_PAGES = 100;
export const MAX_LISTED_TOOLS = 2_000;

export type McpTool = Tool;
export type McpCallResult = CallToolResult;

export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly transport: "stdio" | "http" | "in-process";
  /** Called when the server sends `notifications/tools/list_changed` (never after close()). */
  onToolsChanged: (() => void) | undefined;
  /** Called once when the connection closes by itself (the child exited, the server went away). */
  onClosed: ((why: string) => void) | undefined;
  readonly #sdk: McpSdk;
  readonly #client: Client;
  readonly #stderr: StderrTail;
  #transport: Transport | undefined;
  #pid: number | undefined;
  #open = false;
  /** Why the stdio transport last dropped an answer (over-size), for the call's error. */
  #dropped: string | undefined;
  #closing: Promise<void> | undefined;
  /** The sandbox a stdio server runs in (undefined: unconfined). */
  readonly #sandbox: SandboxPolicy | undefined;

  constructor(sdk: McpSdk, name: string, config: McpServerConfig, sandbox?: SandboxPolicy) {
    this.#sdk = sdk;
    this.name = name;
    this.config = config;
    this.#sandbox = sandbox;
    this.transport = isHttpServer(config) ? "http" : isTransportServer(config) ? "in-process" : "stdio";
    this.#stderr = new StderrTail("command" in config ? config.env : undefined);
    this.#client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
    this.#client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      if (this.#closing === undefined) this.onToolsChanged?.();
    });
    this.#client.onclose = () => {
      const was = this.#open;
      this.#open = false;
      if (was && this.#closing === undefined)
        this.onClosed?.(
          `${this.describe()} closed the connection${this.#dropped === undefined ? "" : ` (${this.#dropped})`}${this.#stderr.suffix()}`,
        );
    };
  }

  /**
   * Connects and initializes within `initTimeoutMs`. Rejects with `McpError`: `init-timeout`
   * (no answer to `initialize` in time) or `connect-failed` (spawn failed, refused, bad
   * handshake, closed meanwhile), naming the server; the transport is closed (a spawned child
   * ended) either way.
   */
  async connect(initTimeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            this.#error(
              "init-timeout",
              `${this.describe()} did not answer initialize within ${initTimeoutMs} ms${this.#stderr.suffix()}`,
            ),
          ),
        initTimeoutMs,
      );
    });
    try {
      if (this.#closing !== undefined)
        throw this.#error("connect-failed", `${this.describe()} was closed while starting`);
      try {
        this.#transport = await this.#transportFor();
      } catch (cause) {
        throw this.#error("connect-failed", `${this.describe()} cannot be set up: ${errorMessage(cause)}`, { cause });
      }
      if (this.#closing !== undefined)
        throw this.#error("connect-failed", `${this.describe()} was closed while starting`);
      await Promise.race([this.#client.connect(this.#transport, { timeout: initTimeoutMs }), deadline]);
      if (this.#closing !== undefined)
        throw this.#error("connect-failed", `${this.describe()} was closed while starting`);
      this.#open = true;
      this.#pid = this.#transport instanceof StdioTransport ? this.#transport.pid : undefined;
    } catch (cause) {
      await this.close();
      if (cause instanceof McpError) throw cause;
      const timedOut = /timed out|timeout/i.test(errorMessage(cause));
      throw this.#error(
        timedOut ? "init-timeout" : "connect-failed",
        timedOut
          ? `${this.describe()} did not answer initialize within ${initTimeoutMs} ms${this.#stderr.suffix()}`
          : `${this.describe()} could not be started or reached: ${errorMessage(cause)}${this.#stderr.suffix()}`,
        { cause },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** An McpError about this server: the message names it, `server` holds its name. */
  #error(code: McpErrorCode, message: string, options: { readonly cause?: unknown } = {}): McpError {
    return new McpError(code, message, { ...options, server: this.name });
  }

  /** The stdio child's pid while it runs (undefined over HTTP). */
  get pid(): number | undefined {
    return this.#open ? this.#pid : undefined;
  }

  get connected(): boolean {
    return this.#open;
  }

  get closed(): boolean {
    return this.#closing !== undefined;
  }

  describe(): string {
    return describeServer(this.name, this.config);
  }

  /**
   * Every tool the server offers: the pages of `tools/list`, at most `MAX_LIST_PAGES` pages and
   * `MAX_LISTED_TOOLS` tools, all within one deadline of `timeoutMs` (`McpError('list-failed')`
   * otherwise); the connection closing stops it too.
   */
  async listTools(timeoutMs: number): Promise<McpTool[]> {
    // One timer for the whole listing; each page gets its own signal (no listener piles up).
    let page = new AbortController();
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      page.abort(new Error("the listing's deadline passed"));
    }, timeoutMs);
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    try {
      do {
        if (pages === MAX_LIST_PAGES)
          throw this.#error(
            "list-failed",
            `${this.describe()}: tools/list goes on past ${MAX_LIST_PAGES} pages (${tools.length} tools so far); its tools are not used`,
          );
        page = new AbortController();
        let answer: Awaited<ReturnType<Client["listTools"]>>;
        try {
          answer = await this.#client.listTools(cursor === undefined ? {} : { cursor }, {
            signal: page.signal,
            timeout: NO_SDK_TIMEOUT,
          });
        } catch (cause) {
          if (expired)
            throw this.#error(
              "list-failed",
              `${this.describe()}: tools/list did not finish within ${timeoutMs} ms (${pages} pages, ${tools.length} tools so far)`,
              { cause },
            );
          throw cause;
        }
        pages++;
        tools.push(...answer.tools);
        if (tools.length > MAX_LISTED_TOOLS)
          throw this.#error(
            "list-failed",
            `${this.describe()}: tools/list offers more than ${MAX_LISTED_TOOLS} tools; its tools are not used`,
          );
        cursor = answer.nextCursor;
      } while (cursor !== undefined);
    } finally {
      clearTimeout(timer);
    }
    return tools;
  }

  /** Calls `tool`; aborting `signal` cancels the request (the server gets `notifications/cancelled`). */
  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    // Messages here reach the model: they name the server, never its stderr (that goes to onClosed).
    if (!this.#open) throw this.#error("connect-failed", `${this.describe()} is not connected`);
    try {
      return (await this.#client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: NO_SDK_TIMEOUT,
      })) as McpCallResult;
    } catch (cause) {
      if (signal.aborted) throw cause;
      if ((cause as { code?: unknown }).code === OVERSIZE_ERROR_CODE)
        throw this.#error(
          "answer-too-large",
          `${this.describe()}: ${errorMessage(cause).replace(/^MCP error -?\d+: /, "")}`,
          {
            cause,
          },
        );
      const closed = !this.#open || /connection closed/i.test(errorMessage(cause));
      throw this.#error(
        closed && this.#dropped !== undefined ? "answer-too-large" : "connect-failed",
        closed
          ? this.#dropped !== undefined
            ? `${this.describe()}: ${this.#dropped}; the server is started again for the next call`
            : `${this.describe()} closed the connection during the call (it may have crashed)`
          : `${this.describe()} failed the call: ${errorMessage(cause)}`,
        { cause },
      );
    }
  }

  /** True when the connection closed because an answer was too large (it may be reopened). */
  get droppedAnswer(): boolean {
    return this.#dropped !== undefined;
  }

  /** Closes the connection (ends a stdio child); idempotent, resolves when the child has exited. */
  close(): Promise<void> {
    this.#open = false;
    this.#closing ??= (async () => {
      await this.#client.close().catch(() => undefined);
      // The SDK closes a transport it was given; ours (stdio) also when connect never got it, and
      // its close() is idempotent and resolves only once the child has exited.
      if (this.#transport instanceof StdioTransport) await this.#transport.close();
    })();
    return this.#closing;
  }

  async #transportFor(): Promise<Transport> {
    const { config } = this;
    const sdk = this.#sdk;
    if (isTransportServer(config)) return config.transport();
    if (isHttpServer(config))
      return new sdk.StreamableHTTPClientTransport(new URL(config.url), {
        ...(config.headers === undefined ? {} : { requestInit: { headers: { ...config.headers } } }),
      });
    return new StdioTransport({
      command: config.command,
      args: config.args ?? [],
      env: { ...sdk.defaultEnvironment(), ...config.env },
      ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
      ...(this.#sandbox === undefined ? {} : { sandbox: this.#sandbox }),
      parse: sdk.deserializeMessage,
      serialize: sdk.serializeMessage,
      onStderr: (text) => this.#stderr.push(text),
      onOversize: (bytes, limit, answered) => {
        if (!answered)
          this.#dropped = `the answer was too large (${bytes} bytes > ${limit}, the limit of one stdio message) and was dropped`;
      },
    });
  }
}
