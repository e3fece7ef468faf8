// Which plugin contributed each session-prefix message, so a difference in the prefix names its
// contributor. A contributor is named after its plugin function (`skillsCatalog`,
// `workspaceInstructions`, `workspaceBaseline`, or the app's own function's name), else
// `plugin N` (its position in `plugins`, from 1). The replay wraps each plugin's
// `agent/session-prefix` listeners — same listeners, same order, so the composition is unchanged —
// and credits a listener with the messages its result holds that the rest of the waterfall did not
// give it. Listeners on `globalHooks` are not the agent's plugins: their messages stay unnamed.
import { canonicalJson, type JsonValue } from "../json/index.js";
import type { AgentPlugin, AgentPluginHost, SessionPrefixPayload } from "../loop/index.js";
import type { Message } from "../messages/index.js";

type PrefixListener = (payload: SessionPrefixPayload, next: () => Promise<readonly Message[]>) => unknown;

export class ContributorNames {
  /** Contributor by the canonical form of a message it contributed. */
  readonly #byForm = new Map<string, string>();
  /** The composition in progress: contributor by message object. */
  #current: Map<Message, string> | undefined;

  /** The contributor that composed a message equal to `message`, if the replay saw one. */
  nameOf(message: Message): string | undefined {
    return this.#byForm.get(canonicalJson(message as unknown as JsonValue));
  }

  /** The outermost listener: opens and closes each composition. Load it before the app's plugins. */
  readonly collector: AgentPlugin = (host) => {
    host.on("agent/session-prefix", async (_payload, next) => {
      const current = new Map<Message, string>();
      this.#current = current;
      try {
        const composed = await next();
        if (Array.isArray(composed))
          for (const message of composed) {
            const name = current.get(message);
            if (name !== undefined) this.#byForm.set(canonicalJson(message as unknown as JsonValue), name);
          }
        return composed;
      } finally {
        this.#current = undefined;
      }
    });
    return undefined;
  };

  /** The app's plugins, each crediting its prefix listeners' messages to its name. */
  wrap(plugins: readonly AgentPlugin[]): AgentPlugin[] {
    return plugins.map((plugin, i) => {
      const name = plugin.name === "" ? `plugin ${i + 1}` : plugin.name;
      const wrapped: AgentPlugin = (host) =>
        plugin({
          ...host,
          on: ((hook: string, listener: unknown) =>
            host.on(
              hook as "agent/session-prefix",
              (hook === "agent/session-prefix" ? this.#crediting(name, listener as PrefixListener) : listener) as never,
            )) as AgentPluginHost["on"],
        });
      return wrapped;
    });
  }

  #crediting(name: string, listener: PrefixListener): PrefixListener {
    return async (payload, next) => {
      let inner: readonly Message[] = [];
      const result = await listener(payload, async () => {
        inner = await next();
        return inner;
      });
      const current = this.#current;
      if (current !== undefined && Array.isArray(result)) {
        const given = new Set(inner);
        for (const message of result as readonly Message[])
          if (!given.has(message) && !current.has(message)) current.set(message, name);
      }
      return result;
    };
  }
}
