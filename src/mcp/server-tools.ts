// The MCP tools of one agent: connects every configured server, keeps the agent's tool registry
// equal to what the servers offer (initially, and after each `notifications/tools/list_changed`),
// and closes the servers when the agent lets go. `settled()` is what a step waits for before it
// reads the tool set: the first connection and every refresh already under way. A server whose
// connection closed by itself (a crashed child, a dropped HTTP session) is connected again at once,
// with a bounded backoff (at most `MAX_RECONNECTS` tries in a row, `reconnectDelayMs` — 250 ms —
// doubling up to 16 times that between them); its tools are listed again and any change reaches
// the next request's header.
import { resolve } from "node:path";
import { errorMessage } from "../errors/index.js";
import type { JsonObject } from "../json/index.js";
import type { Agent } from "../loop/index.js";
import { describeSandbox, resolveSandbox, type SandboxPolicy } from "../sandbox/index.js";
import { jsonSchema, type NeedsApproval, type ToolDefinition, type ToolOutput } from "../tools/index.js";
import { type ConnectionSetup, McpConnection, type McpTool } from "./connection.js";
import { listPrompts, type McpPromptInfo, promptText } from "./prompts.js";
import { offersResources, resourceRequest, resourceToolKind, resourceTools } from "./resources.js";
import { mcpToolOutput } from "./result.js";
import type { Sampler } from "./sampling.js";
import type { McpSdk } from "./sdk.js";
import { mcpToolName } from "./tool-name.js";
import { McpError, type McpServerConfig, type McpServerInfo } from "./types.js";

/** Reconnections in a row (no call answered in between) before a server is given up. */
export const MAX_RECONNECTS = 5;
export const DEFAULT_RECONNECT_DELAY_MS = 250;
const backoffMs = (attempt: number, base: number): number =>
  attempt === 0 ? 0 : Math.min(base * 2 ** (attempt - 1), base * 16);

export interface ServerToolsOptions {
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  readonly timeoutMs: number | undefined;
  readonly initTimeoutMs: number;
  readonly outputCap: number;
  readonly imageCap: number;
  readonly notice: (text: string) => void;
  /** The `needsApproval` of each registered tool, by its Keelson name (the permission gate's). */
  readonly needsApproval?: (name: string) => NeedsApproval;
  /** The first delay between reconnections in a row (doubling). Default 250 ms. */
  readonly reconnectDelayMs?: number;
  /** OAuth, capabilities and handlers of each connection (connection.ts). */
  readonly setup?: ConnectionSetup;
  /** Answers the servers' sampling requests during calls (when sampling is enabled). */
  readonly sampler?: Sampler;
}

interface Registered {
  readonly server: string;
  readonly tool: string;
  /** The MCP definition as JSON, to tell a changed tool from an unchanged one. */
  readonly key: string;
  readonly dispose: () => void;
}

export class ServerTools {
  /** Keelson names of every MCP tool registered now (the permission gate reads it at each call). */
  readonly names = new Set<string>();
  readonly #agent: Agent;
  readonly #options: ServerToolsOptions;
  readonly #connections = new Map<string, McpConnection>();
  readonly #registered = new Map<string, Registered>();
  /** Every connection ever made (reopened ones too), so close() ends them all. */
  readonly #all = new Set<McpConnection>();
  readonly #refreshes = new Set<Promise<void>>();
  readonly #relisting = new Map<McpConnection, { again: boolean }>();
  readonly #reopening = new Map<string, Promise<McpConnection>>();
  /** Each sandboxed stdio server's policy, resolved against its cwd (else the agent's). */
  readonly #sandboxes = new Map<string, SandboxPolicy>();
  /** Reconnections of each server since a call last succeeded on it. */
  readonly #reconnects = new Map<string, number>();
  readonly #ready: Promise<void>;
  #sdk: McpSdk | undefined;
  #closing: Promise<void> | undefined;

  constructor(agent: Agent, sdk: () => Promise<McpSdk>, options: ServerToolsOptions) {
    this.#agent = agent;
    this.#options = options;
    const cwd = agent.session.header.cwd ?? process.cwd();
    for (const [name, config] of Object.entries(options.servers))
      if ("command" in config && config.sandbox !== undefined)
        this.#sandboxes.set(
          name,
          resolveSandbox(config.sandbox, {
            root: resolve(cwd, config.cwd ?? "."),
            where: `MCP server ${name} sandbox`,
          }),
        );
    this.#ready = this.#connectAll(sdk);
    this.#ready.catch(() => undefined); // reported by settled() / ready(), not as unhandled
  }

  /** Resolves once every server is connected and its tools registered; rejects with the first failure. */
  async ready(): Promise<readonly McpServerInfo[]> {
    await this.#ready;
    return this.servers();
  }

  /** The server a registered tool comes from. */
  serverOf(name: string): string | undefined {
    return this.#registered.get(name)?.server;
  }

  servers(): McpServerInfo[] {
    return [...this.#connections.values()].map((c) => ({
      name: c.name,
      transport: c.transport,
      pid: c.pid,
      connected: c.connected,
      tools: [...this.#registered.entries()]
        .filter(([, r]) => r.server === c.name)
        .map(([n]) => n)
        .sort(),
    }));
  }

  /** Every connected server's prompts, by server (servers without the capability offer none). */
  async prompts(): Promise<{ readonly server: string; readonly prompt: McpPromptInfo }[]> {
    await this.#ready;
    const out: { server: string; prompt: McpPromptInfo }[] = [];
    for (const connection of this.#connections.values())
      for (const prompt of await listPrompts(connection, this.#options.initTimeoutMs))
        out.push({ server: connection.name, prompt });
    return out;
  }

  /** The text of `server`'s prompt `name` with `args` (`prompts/get`). */
  async prompt(server: string, name: string, args: Record<string, string>): Promise<string> {
    await this.#ready;
    return promptText(await this.#live(server), name, args, this.#options.initTimeoutMs);
  }

  /** Announces a change of the roots (the setup's `roots` reads the new list) to every connected server. */
  async rootsChanged(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((c) => c.rootsChanged()));
  }

  /** Waits for the first connection and every tool-list refresh under way; gives up when `signal` aborts. */
  async settled(signal: AbortSignal): Promise<void> {
    const aborted = new Promise<never>((_, reject) => {
      const fail = (): void => reject(signal.reason);
      if (signal.aborted) fail();
      else signal.addEventListener("abort", fail, { once: true });
    });
    aborted.catch(() => undefined);
    await Promise.race([this.#ready, aborted]);
    while (this.#refreshes.size > 0) await Promise.race([Promise.all(this.#refreshes), aborted]);
  }

  /**
   * Closes every server (a stdio child is ended, whatever it is doing: starting, listing,
   * answering); idempotent; resolves when no child is left. Nothing is reported after it.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all([...this.#all].map((c) => c.close()));
      await this.#ready.catch(() => undefined);
      await Promise.all([...this.#all].map((c) => c.close())); // any opened meanwhile
    })();
    return this.#closing;
  }

  async #connectAll(loadSdk: () => Promise<McpSdk>): Promise<void> {
    const entries = Object.entries(this.#options.servers);
    if (entries.length === 0) return; // nothing to connect: the SDK is not even loaded
    const sdk = await loadSdk();
    this.#sdk = sdk;
    if (this.#closing !== undefined) return;
    const opened = await Promise.allSettled(
      entries.map(async ([name, config]) => {
        const connection = await this.#open(name, config);
        return { connection, tools: await this.#toolsOf(connection) };
      }),
    );
    if (this.#closing !== undefined) return;
    const failure = opened.find((r) => r.status === "rejected");
    if (failure !== undefined) throw (failure as PromiseRejectedResult).reason;
    const all = opened.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const wanted = new Map<string, { server: string; tool: McpTool }>();
    for (const { connection, tools } of all) this.#want(wanted, connection.name, tools);
    this.#apply(wanted, undefined);
  }

  /** A connection to `name`, tracked at once (so close() can end it while it starts), connected. */
  async #open(name: string, config: McpServerConfig): Promise<McpConnection> {
    const connection = new McpConnection(this.#sdk!, name, config, this.#options.setup, this.#sandboxes.get(name));
    this.#all.add(connection);
    await connection.connect(this.#options.initTimeoutMs);
    if (this.#closing !== undefined) {
      await connection.close();
      throw new McpError("connect-failed", `${connection.describe()} was closed while starting`, {
        server: connection.name,
      });
    }
    this.#connections.set(name, connection);
    connection.onToolsChanged = () => this.#refresh(connection);
    connection.onClosed = (why) => {
      const giveUp = (this.#reconnects.get(name) ?? 0) >= MAX_RECONNECTS;
      this.#options.notice(
        giveUp
          ? `${why}; it was connected again ${MAX_RECONNECTS} times in a row, so its tools answer with an error from now on`
          : `${why}; it is ${connection.transport === "stdio" ? "started" : "connected"} again for the next call`,
      );
      if (!giveUp) this.#reconnectNow(name);
    };
    return connection;
  }

  /** Starts reconnecting `server` now; the next step waits for it (and its re-listed tools). */
  #reconnectNow(server: string): void {
    if (this.#closing !== undefined) return;
    const reconnect = this.#live(server).then(
      () => undefined,
      () => undefined, // said when a call needs it; the previous tools stay meanwhile
    );
    this.#refreshes.add(reconnect);
    void reconnect.finally(() => this.#refreshes.delete(reconnect));
  }

  /**
   * The live connection to `server`. One that closed by itself is opened again (once, however
   * many calls ask; after the backoff of its reconnections in a row) and its tools re-listed.
   */
  async #live(server: string): Promise<McpConnection> {
    const current = this.#connections.get(server);
    if (current === undefined)
      throw new McpError("connect-failed", `MCP server "${server}" is not connected`, { server });
    if (current.connected || this.#closing !== undefined) return current;
    let reopening = this.#reopening.get(server);
    if (reopening === undefined) {
      const attempt = this.#reconnects.get(server) ?? 0;
      if (attempt >= MAX_RECONNECTS) return current; // given up: its calls say it is not connected
      this.#reconnects.set(server, attempt + 1);
      reopening = (async () => {
        await new Promise((resolve) =>
          setTimeout(resolve, backoffMs(attempt, this.#options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS)).unref(),
        );
        if (this.#closing !== undefined) return current;
        const fresh = await this.#open(server, current.config);
        this.#refresh(fresh);
        return fresh;
      })();
      this.#reopening.set(server, reopening);
      void reopening.then(
        () => this.#reopening.delete(server),
        () => this.#reopening.delete(server),
      );
    }
    return reopening;
  }

  /**
   * Re-lists one server's tools after `list_changed`, applied as soon as the answer comes.
   * Coalesced: while a re-list runs, any number of notifications make one more re-list after it.
   */
  #refresh(connection: McpConnection): void {
    if (this.#closing !== undefined || connection.closed) return;
    const state = this.#relisting.get(connection);
    if (state !== undefined) {
      state.again = true;
      return;
    }
    const mine = { again: false };
    this.#relisting.set(connection, mine);
    const refresh = (async () => {
      try {
        await this.#ready;
        do {
          mine.again = false;
          const tools = await this.#toolsOf(connection);
          if (this.#closing !== undefined || connection.closed) return;
          const wanted = new Map<string, { server: string; tool: McpTool }>();
          for (const [name, r] of this.#registered)
            if (r.server !== connection.name)
              wanted.set(name, { server: r.server, tool: JSON.parse(r.key) as McpTool });
          this.#want(wanted, connection.name, tools);
          this.#apply(wanted, connection.name);
        } while (mine.again && this.#closing === undefined);
      } catch (error) {
        if (this.#closing !== undefined || connection.closed) return; // silent once closed
        this.#agent.hooks.emit("agent/error", { agent: this.#agent, error, where: "mcp" });
        this.#options.notice(
          `${connection.describe()}: its new tool list could not be applied (${errorMessage(error)}); the previous tools stay`,
        );
      } finally {
        this.#relisting.delete(connection);
      }
    })();
    this.#refreshes.add(refresh);
    void refresh.finally(() => this.#refreshes.delete(refresh));
  }

  /** The server's tools, plus Keelson's resource tools when it offers resources (resources.ts). */
  async #toolsOf(connection: McpConnection): Promise<McpTool[]> {
    const tools = await connection.listTools(this.#options.initTimeoutMs);
    return offersResources(connection) ? [...tools, ...resourceTools()] : tools;
  }

  /** Adds `server`'s tools to `wanted` by Keelson name; a name taken twice is `name-collision`. */
  #want(wanted: Map<string, { server: string; tool: McpTool }>, server: string, tools: readonly McpTool[]): void {
    for (const tool of tools) {
      const name = mcpToolName(server, tool.name);
      const other = wanted.get(name);
      if (other !== undefined)
        throw new McpError(
          "name-collision",
          `MCP tools ${JSON.stringify(`${other.server}/${other.tool.name}`)} and ${JSON.stringify(`${server}/${tool.name}`)} both become the tool name ${name}; rename a server in the configuration`,
        );
      if (this.#agent.tools.get(name) !== undefined && !this.#registered.has(name))
        throw new McpError(
          "name-collision",
          `MCP tool ${JSON.stringify(`${server}/${tool.name}`)} becomes ${name}, which another tool of the agent already has`,
        );
      wanted.set(name, { server, tool });
    }
  }

  /** Makes the registry hold exactly `wanted` for the servers it covers (`only`, or all). */
  #apply(wanted: ReadonlyMap<string, { server: string; tool: McpTool }>, only: string | undefined): void {
    for (const [name, r] of [...this.#registered]) {
      if (only !== undefined && r.server !== only) continue;
      const next = wanted.get(name);
      if (next === undefined || JSON.stringify(next.tool) !== r.key) {
        r.dispose();
        this.#registered.delete(name);
        this.names.delete(name);
      }
    }
    for (const [name, { server, tool }] of wanted) {
      if (this.#registered.has(name)) continue;
      const dispose = this.#agent.tools.register(this.#definition(name, server, tool));
      this.#registered.set(name, { server, tool: tool.name, key: JSON.stringify(tool), dispose });
      this.names.add(name);
    }
  }

  #definition(name: string, server: string, tool: McpTool): ToolDefinition {
    const live = (): Promise<McpConnection> => this.#live(server);
    const cap = this.#options.outputCap;
    const imageCap = this.#options.imageCap;
    const meta: JsonObject = { mcpServer: server, mcpTool: tool.name };
    const sandbox = this.#sandboxes.get(server);
    const description = tool.description ?? tool.title ?? `${tool.name} (from the MCP server ${server})`;
    return {
      name,
      // The policy the server runs under is part of each of its tools' logged definition.
      description:
        sandbox === undefined
          ? description
          : `${description}\n\n${describeSandbox(sandbox, `the MCP server ${server}`)}`,
      input: jsonSchema(tool.inputSchema as JsonObject),
      ...(this.#options.timeoutMs === undefined ? {} : { timeoutMs: this.#options.timeoutMs }),
      // Never read-only: the call leaves the process, and an annotation is the server's word only.
      readOnly: false,
      ...(this.#options.needsApproval === undefined ? {} : { needsApproval: this.#options.needsApproval(name) }),
      execute: async (args, context): Promise<ToolOutput> => {
        const resources = resourceToolKind(tool);
        const call = async (): Promise<ToolOutput> => {
          const connection = await live();
          if (resources !== undefined) {
            const input = args as { cursor?: string; uri?: string };
            const answer = await resourceRequest(
              connection,
              resources === "read" ? { read: input.uri! } : { list: input.cursor },
              context.signal,
            );
            return mcpToolOutput(answer, cap, meta, imageCap);
          }
          const result = await connection.callTool(tool.name, args as Record<string, unknown>, context.signal, {
            ask: context.ask,
            progress: context.progress,
            sample: this.#options.sampler?.forCall({
              server,
              tool: name,
              callId: context.callId,
              ask: context.ask,
              signal: context.signal,
            }),
          });
          this.#reconnects.delete(server); // answered: the next closing starts a fresh backoff
          return mcpToolOutput(result, cap, meta, imageCap);
        };
        try {
          return await call();
        } catch (error) {
          // The server no longer knows the HTTP session (it restarted): it never ran the call, so
          // the call is sent once more on a new session.
          if (error instanceof McpError && error.code === "session-expired") return call();
          throw error;
        }
      },
    };
  }
}
