// Agent profiles: a named, code-defined agent configuration (provider, model, prompt, tools,
// plugins, options) from which whoever serves sessions — an agent host (src/host) or a fleet
// worker (src/fleet) — builds a fresh loop instance over a stored session. Defined here, under
// both, so one profile object serves either; `profileAgentOptions` is the one way it becomes
// `AgentOptions`, `profileProblem` the one check of its shape.
import type { Provider } from "../llm/core.js";
import type { AgentOptions } from "./types.js";

/** What a profile's factories are told about the agent they build. */
export interface ProfileContext {
  /** The profile's name. */
  readonly profile: string;
  readonly sessionId: string;
  /**
   * The queued turn the agent is built for, when a fleet worker builds it (one agent per turn).
   * Absent in an agent host, which builds one agent per opened session and runs many turns on it.
   */
  readonly turnId?: string;
}

/** Agent options a profile may set besides the ones it names itself (sampling, maxSteps, durability, retry, invariants, cwd, …). */
export type ProfileAgentOptions = Omit<
  AgentOptions,
  "provider" | "providers" | "model" | "system" | "tools" | "plugins" | "store" | "session" | "sessionId"
>;

/**
 * A named, code-defined agent configuration: every agent built from it is a fresh loop instance
 * over a stored session. Plain data plus factories; nothing about it is stored, so every process
 * serving a profile name must define the same configuration under it.
 */
export interface AgentProfile {
  /** The provider: one instance shared by every agent, or a factory called once per agent built. */
  readonly provider: Provider | ((context: ProfileContext) => Provider | Promise<Provider>);
  /** The model id sent in each request. */
  readonly model: string;
  readonly system?: AgentOptions["system"];
  readonly tools?: AgentOptions["tools"];
  /** Plugins, or a factory called once per agent built (for plugins holding per-agent state). */
  readonly plugins?: AgentOptions["plugins"] | ((context: ProfileContext) => AgentOptions["plugins"]);
  readonly options?: ProfileAgentOptions;
}

/** The agent options a profile gives for `context` (its factories called now); the caller adds the store. */
export async function profileAgentOptions(
  profile: AgentProfile,
  context: ProfileContext,
): Promise<Omit<AgentOptions, "store" | "sessionId">> {
  const provider = typeof profile.provider === "function" ? await profile.provider(context) : profile.provider;
  const plugins = typeof profile.plugins === "function" ? profile.plugins(context) : profile.plugins;
  return {
    ...profile.options,
    provider,
    model: profile.model,
    ...(profile.system === undefined ? {} : { system: profile.system }),
    ...(profile.tools === undefined ? {} : { tools: profile.tools }),
    ...(plugins === undefined ? {} : { plugins }),
  };
}

/**
 * What is wrong with a profile registered under `name`, in words that follow `profile "<name>"`
 * — or undefined when it is usable. Callers wrap it in their layer's error.
 */
export function profileProblem(name: string, profile: unknown): string | undefined {
  if (name === "" || name.includes(" ")) return "is not a usable name (empty or with a space)";
  if (typeof profile !== "object" || profile === null) return "is not an object";
  const { model, provider } = profile as { model?: unknown; provider?: unknown };
  if (typeof model !== "string" || model === "") return "needs a `model` string";
  const isProvider = typeof provider === "object" && provider !== null && "stream" in provider;
  if (typeof provider !== "function" && !isProvider)
    return "needs a `provider` (a Provider or a function returning one)";
  return undefined;
}
