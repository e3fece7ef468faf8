// One MCP server connection: spawn (stdio, our own transport: stdio-transport.ts) or reach
// (Streamable HTTP) the server, initialize within a deadline, list its tools (bounded pages, one
// deadline for the whole listing), call them, learn when its tool list changes or the connection
// closes, and close it — for stdio, the child is ended (stdin closed, SIGTERM, SIGKILL) whatever
// it is doing, even before it answered `initialize`. A stdio child's stderr is kept as a short,
// redacted tail (stderr-tail.ts) for a person's messages; it never goes into a tool result.
import { errorMessage } from "../errors/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, ClientCapabilities, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { SandboxPolicy } from "../sandbox/index.js";
import type { ToolContext } from "../tools/index.js";
import { answerElicitation } from "./elicitation.js";
import type { McpRoot } from "./roots.js";
import type { SampleFn } from "./sampling.js";
import { samplingRefusal, USER_REJECTED } from "./sampling-wire.js";
import { authFailureCode, authFailureText, MAX_AUTH_ROUNDS } from "./failure.js";
import { KeelsonOAuthProvider } from "./oauth-provider.js";
import type { McpSdk } from "./sdk.js";
import { StderrTail } from "./stderr-tail.js";
import { OVERSIZE_ERROR_CODE, StdioTransport } from "./stdio-transport.js";
import {
  describeServer,
  isHttpServer,
  isTransportServer,
  type McpAuthOptions,
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

/** How long dispose waits for the server to acknowledge the end of an HTTP session (DELETE). */
const TERMINATE_TIMEOUT_MS = 2_000;

export type McpTool = Tool;

export type McpCallResult = CallToolResult;

/** What a connection offers the server besides tools, set up on each SDK client it makes. */
export interface ConnectionSetup {
  /** OAuth for an HTTP server (Keelson's client; a server's own `authProvider` wins). */
  readonly auth?: McpAuthOptions;
  /** The client capabilities declared in `initialize` (asked when each client is made). */
  readonly capabilities?: () => ClientCapabilities;
  /** Installs request and notification handlers on a new SDK client (before it connects). */
  readonly configure?: (client: Client, connection: McpConnection) => void;
  /** The roots offered (`roots/list`), read at each request; with it the `roots` capability is declared. */
  readonly roots?: () => readonly McpRoot[];
}

/** Where a call's server requests and notifications go: questions, progress reports, sampling requests. */
export interface CallHandlers {
  readonly ask?: ToolContext["ask"] | undefined;
  readonly progress?: ToolContext["progress"] | undefined;
  readonly sample?: SampleFn | undefined;
}

export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly transport: "stdio" | "http" | "in-process";
  /** Called when the server sends `notifications/tools/list_changed` (never after close()). */
  onToolsChanged: (() => void) | undefined;
  /** Called once when the connection closes by itself (the child exited, the server went away). */
  onClosed: ((why: string) => void) | undefined;
  readonly #sdk: McpSdk;
  readonly #setup: ConnectionSetup;
  readonly #auth: OAuthClientProvider | undefined;
  #client: Client;
  readonly #stderr: StderrTail;
  #transport: Transport | undefined;
  #pid: number | undefined;
  #open = false;
  /** Why the stdio transport last dropped an answer (over-size), for the call's error. */
  #dropped: string | undefined;
  #closing: Promise<void> | undefined;
  /** The sandbox a stdio server runs in (undefined: unconfined). */
  readonly #sandbox: SandboxPolicy | undefined;
  /** The call in flight (tools run one at a time per agent): where the server's questions and sampling requests go. */
  #inflight:
    | { readonly ask: ToolContext["ask"]; readonly sample: SampleFn | undefined; readonly suspend: AbortController }
    | undefined;

  constructor(
    sdk: McpSdk,
    name: string,
    config: McpServerConfig,
    setup: ConnectionSetup = {},
    sandbox?: SandboxPolicy,
  ) {
    this.#sdk = sdk;
    this.#setup = setup;
    this.name = name;
    this.config = config;
    this.#sandbox = sandbox;
    this.transport = isHttpServer(config) ? "http" : isTransportServer(config) ? "in-process" : "stdio";
    this.#stderr = new StderrTail("command" in config ? config.env : undefined);
    this.#auth = isHttpServer(config)
      ? (config.authProvider ??
        (setup.auth === undefined
          ? undefined
          : new KeelsonOAuthProvider(name, this.describe(), config.url, setup.auth, config.oauth)))
      : undefined;
    this.#client = this.#newClient();
  }

  /** A fresh SDK client (one per connection attempt: a client whose connect failed cannot be reused). */
  #newClient(): Client {
    const roots = this.#setup.roots;
    const capabilities = {
      ...this.#setup.capabilities?.(),
      ...(roots === undefined ? {} : { roots: { listChanged: true } }),
    };
    const client = new this.#sdk.Client(CLIENT_INFO, { capabilities });
    client.setNotificationHandler(this.#sdk.ToolListChangedNotificationSchema, () => {
      if (this.#closing === undefined && client === this.#client) this.onToolsChanged?.();
    });
    if (roots !== undefined)
      client.setRequestHandler(this.#sdk.ListRootsRequestSchema, () => ({ roots: roots().map((r) => ({ ...r })) }));
    if (capabilities.elicitation !== undefined)
      client.setRequestHandler(this.#sdk.ElicitRequestSchema, async (request) => {
        const call = this.#inflight;
        return answerElicitation(request.params, call?.ask, () =>
          call?.suspend.abort(new Error("the call is suspended until its question is answered")),
        );
      });
    if (capabilities.sampling !== undefined)
      client.setRequestHandler(this.#sdk.CreateMessageRequestSchema, async (request, extra) => {
        const call = this.#inflight;
        if (call?.sample === undefined)
          throw samplingRefusal(
            USER_REJECTED,
            "User rejected sampling request: sampling is answered only during a tool call",
          );
        return call.sample(request.params, extra.signal, () =>
          call.suspend.abort(new Error("the call is suspended until its sampling request is approved")),
        );
      });
    this.#setup.configure?.(client, this);
    client.onclose = () => {
      if (client !== this.#client) return;
      const was = this.#open;
      this.#open = false;
      if (was && this.#closing === undefined)
        this.onClosed?.(
          `${this.describe()} closed the connection${this.#dropped === undefined ? "" : ` (${this.#dropped})`}${this.#stderr.suffix()}`,
        );
    };
    return client;
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
      for (let round = 1; ; round++) {
        if (this.#closing !== undefined)
          throw this.#error("connect-failed", `${this.describe()} was closed while starting`);
        let transport: Transport;
        try {
          transport = await this.#transportFor();
        } catch (cause) {
          throw this.#error("connect-failed", `${this.describe()} cannot be set up: ${errorMessage(cause)}`, { cause });
        }
        this.#transport = transport;
        if (round > 1) this.#client = this.#newClient();
        if (this.#closing !== undefined)
          throw this.#error("connect-failed", `${this.describe()} was closed while starting`);
        try {
          await Promise.race([this.#client.connect(transport, { timeout: initTimeoutMs }), deadline]);
          break;
        } catch (cause) {
          // An authorization started by the 401 (login, conformance): exchange its code, connect again.
          if (round < MAX_AUTH_ROUNDS && (await this.#finishAuthorization(cause, transport))) {
            await this.#client.close().catch(() => undefined);
            continue;
          }
          throw cause;
        }
      }
      if (this.#closing !== undefined)
        throw this.#error("connect-failed", `${this.describe()} was closed while starting`);
      this.#open = true;
      this.#pid = this.#transport instanceof StdioTransport ? this.#transport.pid : undefined;
    } catch (cause) {
      await this.close();
      if (cause instanceof McpError) throw cause;
      const denied = authFailureCode(cause);
      if (denied !== undefined)
        throw this.#error(denied, `${this.describe()} ${authFailureText(denied, cause, this.name)}`, { cause });
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

  /**
   * After a failure that started an authorization (Keelson's provider with an `authorize`
   * callback): waits for the code, exchanges it for tokens, and says the operation may be retried.
   */
  async #finishAuthorization(cause: unknown, transport: Transport | undefined): Promise<boolean> {
    if (authFailureCode(cause) !== "unauthorized" || !(this.#auth instanceof KeelsonOAuthProvider)) return false;
    const code = this.#auth.takeCode();
    if (code === undefined || transport === undefined) return false;
    await (transport as StreamableHTTPClientTransport).finishAuth(await code);
    return true;
  }

  /** `request`, once more after each authorization it started (at most `MAX_AUTH_ROUNDS` in all). */
  async #authorized<T>(request: () => Promise<T>): Promise<T> {
    for (let round = 1; ; round++) {
      try {
        return await request();
      } catch (cause) {
        if (round < MAX_AUTH_ROUNDS && (await this.#finishAuthorization(cause, this.#transport))) continue;
        throw cause;
      }
    }
  }

  /** The McpError for a failed request: an authorization failure, else `code` with `text`. */
  #failure(cause: unknown, code: McpErrorCode, text: string): McpError {
    if (cause instanceof McpError) return cause;
    const denied = authFailureCode(cause);
    return denied === undefined
      ? this.#error(code, text, { cause })
      : this.#error(denied, `${this.describe()} ${authFailureText(denied, cause, this.name)}`, { cause });
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
        const signal = page.signal;
        try {
          answer = await this.#authorized(() =>
            this.#client.listTools(cursor === undefined ? {} : { cursor }, { signal, timeout: NO_SDK_TIMEOUT }),
          );
        } catch (cause) {
          if (expired)
            throw this.#error(
              "list-failed",
              `${this.describe()}: tools/list did not finish within ${timeoutMs} ms (${pages} pages, ${tools.length} tools so far)`,
              { cause },
            );
          const closed = !this.#open || /connection closed/i.test(errorMessage(cause));
          throw this.#failure(
            cause,
            closed ? "connect-failed" : "list-failed",
            closed
              ? `${this.describe()} closed the connection during tools/list${this.#stderr.suffix()}`
              : `${this.describe()}: tools/list failed: ${errorMessage(cause)}`,
          );
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

  /**
   * Calls `tool`; aborting `signal` cancels the request (the server gets `notifications/cancelled`).
   * The server's questions during the call (elicitation) go to `ask`; one left unanswered
   * (the call is suspended) cancels the request too. Its progress reports go to `progress`, its
   * sampling requests to `sample` (sampling.ts).
   */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    callSignal: AbortSignal,
    { ask, progress, sample }: CallHandlers = {},
  ): Promise<McpCallResult> {
    // Messages here reach the model: they name the server, never its stderr (that goes to onClosed).
    if (!this.#open) throw this.#error("connect-failed", `${this.describe()} is not connected`);
    const suspend = new AbortController();
    const signal = AbortSignal.any([callSignal, suspend.signal]);
    this.#inflight = { ask, sample, suspend };
    try {
      return (await this.#authorized(() =>
        this.#client.callTool({ name: tool, arguments: args }, undefined, {
          signal,
          timeout: NO_SDK_TIMEOUT,
          // A progress token goes with the call; each report is a live event and restarts its timeout.
          ...(progress === undefined
            ? {}
            : {
                onprogress: ({ progress: done, total, message }) =>
                  progress({
                    progress: done,
                    ...(total === undefined ? {} : { total }),
                    ...(message === undefined ? {} : { message: message.slice(0, 500) }),
                  }),
              }),
        }),
      )) as McpCallResult;
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
      if (this.transport === "http" && (cause as { code?: unknown }).code === 404) {
        // The server no longer knows our session (it restarted): a new one is needed.
        await this.close();
        throw this.#error("session-expired", `${this.describe()} no longer knows the HTTP session (404)`, { cause });
      }
      if (cause instanceof McpError || authFailureCode(cause) !== undefined)
        throw this.#failure(cause, "connect-failed", errorMessage(cause));
      throw this.#error(
        closed && this.#dropped !== undefined ? "answer-too-large" : "connect-failed",
        closed
          ? this.#dropped !== undefined
            ? `${this.describe()}: ${this.#dropped}; the server is started again for the next call`
            : `${this.describe()} closed the connection during the call (it may have crashed)`
          : `${this.describe()} failed the call: ${errorMessage(cause)}`,
        { cause },
      );
    } finally {
      if (this.#inflight?.suspend === suspend) this.#inflight = undefined;
    }
  }

  /** The server's capabilities while connected (what `initialize` answered). */
  get serverCapabilities(): ReturnType<Client["getServerCapabilities"]> {
    return this.#open ? this.#client.getServerCapabilities() : undefined;
  }

  /**
   * `op` on the live SDK client, again after each authorization it started; a failure is an
   * McpError naming the server (`code`, "<what> failed: …"), unless `signal` aborted it.
   */
  async request<T>(
    what: string,
    code: McpErrorCode,
    op: (client: Client) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    if (!this.#open) throw this.#error("connect-failed", `${this.describe()} is not connected`);
    try {
      return await this.#authorized(() => op(this.#client));
    } catch (cause) {
      if (signal?.aborted === true) throw cause;
      throw this.#failure(cause, code, `${this.describe()}: ${what} failed: ${errorMessage(cause)}`);
    }
  }

  /** Tells the server its roots changed (`notifications/roots/list_changed`); nothing when not connected. */
  async rootsChanged(): Promise<void> {
    if (this.#open && this.#setup.roots !== undefined) await this.#client.sendRootsListChanged().catch(() => undefined);
  }

  /** True when the connection closed because an answer was too large (it may be reopened). */
  get droppedAnswer(): boolean {
    return this.#dropped !== undefined;
  }

  /** Closes the connection (ends a stdio child); idempotent, resolves when the child has exited. */
  close(): Promise<void> {
    this.#open = false;
    this.#closing ??= (async () => {
      await this.#endHttpSession();
      await this.#client.close().catch(() => undefined);
      // The SDK closes a transport it was given; ours (stdio) also when connect never got it, and
      // its close() is idempotent and resolves only once the child has exited.
      if (this.#transport instanceof StdioTransport) await this.#transport.close();
    })();
    return this.#closing;
  }

  /** Ends the server's HTTP session (DELETE with its Mcp-Session-Id), waiting at most a moment. */
  async #endHttpSession(): Promise<void> {
    const transport = this.#transport as Partial<StreamableHTTPClientTransport> | undefined;
    if (this.transport !== "http" || transport?.sessionId === undefined || transport.terminateSession === undefined)
      return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      transport.terminateSession().catch(() => undefined),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, TERMINATE_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  async #transportFor(): Promise<Transport> {
    const { config } = this;
    const sdk = this.#sdk;
    if (isTransportServer(config)) return config.transport();
    if (isHttpServer(config))
      return new sdk.StreamableHTTPClientTransport(new URL(config.url), {
        ...(config.headers === undefined ? {} : { requestInit: { headers: { ...config.headers } } }),
        ...(this.#auth === undefined ? {} : { authProvider: this.#auth }),
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
