// mcpTools: the plugin that gives an agent the tools of MCP servers as ordinary tools
// (`mcp__<server>__<tool>`). Per agent it connects the servers (the SDK is loaded only then),
// waits for them — and for any tool-list refresh under way — before each step reads the tool set
// (`agent/tool-set`), gates every MCP call with the built-in writes' permission gate (as approvals:
// each MCP tool `needsApproval` until the policy allows it; the gate answers on `approval/ask`), says which
// logged MCP tools a resumed session lost, and closes the servers when the agent is disposed.
import { type PermissionPolicy, permissionGate, showable } from "../builtin-tools/index.js";
import { DEFAULT_OUTPUT_CAP } from "../builtin-tools/index.js";
import { foldRequestHeader } from "../header/index.js";
import type { Agent, AgentPlugin } from "../loop/index.js";
import { DEFAULT_MCP_IMAGE_CAP } from "./result.js";
import { Sampler, samplingSettings } from "./sampling.js";
import { loadMcpSdk } from "./sdk.js";
import { checkServers } from "./server-config.js";
import { rootsOf } from "./roots.js";
import type { McpPromptInfo } from "./prompts.js";
import { ServerTools } from "./server-tools.js";
import { MCP_PREFIX, mcpServerPrefix } from "./tool-name.js";
import { McpError, type McpServerInfo, type McpToolsOptions } from "./types.js";

export const DEFAULT_MCP_INIT_TIMEOUT_MS = 30_000;

/** Every mcpTools plugin loaded into an agent, for `mcpServers(agent)`. */
const loaded = new WeakMap<Agent, ServerTools[]>();

/** One configured server's state for a person: connected with its tools, or why not. */
export type McpServerStatus = McpServerInfo | { readonly name: string; readonly error: McpError | Error };

/**
 * Waits for every mcpTools plugin of `agent` to finish connecting and lists its servers; a
 * plugin whose connection failed contributes its error instead (`name` = the failing server's
 * name when the error names one). An agent without MCP servers lists none.
 */
export async function mcpServers(agent: Agent): Promise<McpServerStatus[]> {
  const out: McpServerStatus[] = [];
  for (const tools of loaded.get(agent) ?? []) {
    try {
      out.push(...(await tools.ready()));
    } catch (error) {
      const name = error instanceof McpError ? (error.server ?? "?") : "?";
      out.push({ name, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }
  return out;
}

/** Every prompt the MCP servers of `agent` offer (`prompts/list`), by server; none without MCP servers. */
export async function mcpPrompts(agent: Agent): Promise<{ readonly server: string; readonly prompt: McpPromptInfo }[]> {
  const out: { server: string; prompt: McpPromptInfo }[] = [];
  for (const tools of loaded.get(agent) ?? []) out.push(...(await tools.prompts()));
  return out;
}

/**
 * The text of prompt `name` of MCP server `server` with `args` (`prompts/get`): what chat's
 * `/prompt` sends as the user's message. `McpError('not-loaded')` when no plugin of `agent` has
 * that server.
 */
export async function mcpPrompt(
  agent: Agent,
  server: string,
  name: string,
  args: Readonly<Record<string, string>> = {},
): Promise<string> {
  for (const tools of loaded.get(agent) ?? [])
    if ((await tools.ready().catch(() => [])).some((s) => s.name === server))
      return tools.prompt(server, name, { ...args });
  throw new McpError("not-loaded", `no MCP server ${JSON.stringify(server)} is connected for this agent`, { server });
}

/** The plugin, plus what the application may ask about the servers it connected for an agent. */
export type McpToolsPlugin = AgentPlugin & {
  /** Resolves when `agent`'s servers are connected and their tools registered; rejects with the first `McpError`. */
  ready(agent: Agent): Promise<readonly McpServerInfo[]>;
  /** The servers connected for `agent` so far. */
  servers(agent: Agent): readonly McpServerInfo[];
  /** Closes `agent`'s servers (also done on dispose) and resolves when stdio children have exited. */
  close(agent: Agent): Promise<void>;
  /**
   * Changes the roots offered to `agent`'s servers (when the workspace changes) and tells each
   * connected one (`notifications/roots/list_changed`). No effect with `roots: false`.
   */
  setRoots(agent: Agent, dirs: readonly string[]): Promise<void>;
};

/** See src/mcp/README.md. The permission policy defaults to `{ mode: 'deny' }`, like the built-in writes. */
export function mcpTools(options: McpToolsOptions): McpToolsPlugin {
  const servers = checkServers(options.servers, "mcpTools options");
  for (const [key, value] of [
    ["timeoutMs", options.timeoutMs],
    ["initTimeoutMs", options.initTimeoutMs],
    ["outputCap", options.outputCap],
    ["imageCap", options.imageCap],
    ["reconnectDelayMs", options.reconnectDelayMs],
  ] as const)
    if (value !== undefined && (!Number.isInteger(value) || value <= 0))
      throw new McpError("invalid-config", `mcpTools options: ${key} must be a positive integer (got ${value})`);
  const sampling = samplingSettings(options.sampling);
  const policy: PermissionPolicy = options.permissions ?? { mode: "deny" };
  const notice = options.onNotice ?? (() => undefined);
  const byAgent = new WeakMap<Agent, ServerTools>();
  const rootsByAgent = new WeakMap<Agent, (dirs: readonly string[]) => Promise<void>>();
  const of = (agent: Agent): ServerTools => {
    const tools = byAgent.get(agent);
    if (tools === undefined) throw new McpError("not-loaded", "this mcpTools plugin is not loaded in that agent");
    return tools;
  };

  const plugin: AgentPlugin = (host) => {
    const { agent } = host;
    // Every MCP call needs approval unless the policy allows it: by --allow of the tool, of its
    // server (`mcp__<server>`) or of every MCP tool (`mcp`), or by an earlier `always`.
    const serverAllowed = (name: string): boolean => {
      const server = tools.serverOf(name);
      return (
        server !== undefined &&
        (policy.allow?.has("mcp") === true || policy.allow?.has(mcpServerPrefix(server)) === true)
      );
    };
    let roots =
      options.roots === false ? undefined : rootsOf(options.roots ?? [agent.session.header.cwd ?? process.cwd()]);
    rootsByAgent.set(agent, async (dirs) => {
      roots = rootsOf(dirs);
      await tools.rootsChanged();
    });
    const sampler = sampling === undefined ? undefined : new Sampler(agent, sampling);
    const tools: ServerTools = new ServerTools(agent, loadMcpSdk, {
      needsApproval: (name) => () => (serverAllowed(name) ? false : gate.needsApproval(name)()),
      servers,
      timeoutMs: options.timeoutMs,
      initTimeoutMs: options.initTimeoutMs ?? DEFAULT_MCP_INIT_TIMEOUT_MS,
      outputCap: options.outputCap ?? DEFAULT_OUTPUT_CAP,
      imageCap: options.imageCap ?? DEFAULT_MCP_IMAGE_CAP,
      notice,
      ...(options.reconnectDelayMs === undefined ? {} : { reconnectDelayMs: options.reconnectDelayMs }),
      ...(sampler === undefined ? {} : { sampler }),
      setup: {
        ...(options.auth === undefined ? {} : { auth: options.auth }),
        // Elicitation is offered only when a question can be answered: live, or into a store;
        // sampling only when the application enabled it.
        capabilities: () => ({
          ...((options.elicitation ?? agent.answersQuestions)
            ? { elicitation: { form: { applyDefaults: true } } }
            : {}),
          ...(sampler === undefined ? {} : { sampling: {} }),
        }),
        ...(roots === undefined ? {} : { roots: () => roots ?? [] }),
      },
    });
    byAgent.set(agent, tools);
    loaded.set(agent, [...(loaded.get(agent) ?? []), tools]);
    let checkedLog = false;
    host.on("agent/tool-set", async ({ signal }) => {
      await tools.settled(signal);
      if (!checkedLog) {
        checkedLog = true;
        reportDropped(agent, Object.keys(servers), notice);
      }
    });
    const gate = permissionGate(policy, tools.names, (_tool, args) =>
      showable(args === undefined ? "(arguments that are not valid JSON)" : JSON.stringify(args), false),
    );
    host.on("approval/ask", (payload, next) =>
      serverAllowed(payload.request.tool) ? next() : gate.ask(payload, next),
    );
    // The application's live sampling approver answers the sampling question being asked, first.
    const approve = sampling?.approve;
    if (sampler !== undefined && approve !== undefined)
      host.on("input/ask", async (payload, next) => {
        const asking = sampler.asking;
        if (
          asking === undefined ||
          payload.request.callId !== asking.callId ||
          payload.request.message !== asking.message
        )
          return next();
        const { message: _, ...request } = asking;
        const verdict = await approve(request);
        return verdict === undefined ? next() : { value: verdict ? "approve" : "deny", by: "sampling.approve" };
      });
    return () => {
      loaded.set(
        agent,
        (loaded.get(agent) ?? []).filter((t) => t !== tools),
      );
      void tools.close();
    };
  };
  return Object.assign(plugin, {
    ready: (agent: Agent) => of(agent).ready(),
    servers: (agent: Agent) => of(agent).servers(),
    close: (agent: Agent) => of(agent).close(),
    setRoots: async (agent: Agent, dirs: readonly string[]) => {
      of(agent);
      await rootsByAgent.get(agent)?.(dirs);
    },
  });
}

/**
 * The resume policy: an MCP tool in the log's last header that no server offers now is dropped
 * (this instance's header, logged before its first request, no longer lists it; a call the model
 * still makes gets an `unknown-tool` result). Said once per instance through `onNotice`.
 */
function reportDropped(agent: Agent, configured: readonly string[], notice: (text: string) => void): void {
  const logged = foldRequestHeader(agent.session.events)?.tools ?? [];
  for (const { name } of logged) {
    if (!name.startsWith(MCP_PREFIX) || agent.tools.get(name) !== undefined) continue;
    const server = configured.find((s) => name.startsWith(`${mcpServerPrefix(s)}__`));
    notice(
      server === undefined
        ? `the logged tool ${name} is dropped: no configured MCP server offers it (its server is not configured)`
        : `the logged tool ${name} is dropped: MCP server "${server}" no longer offers it`,
    );
  }
}
