// A plugin's name: what reports call it by — `keelson replay` names the session-prefix contributor
// of a message that differs after it — which is the plugin function's own `name`. An arrow function
// returned by a factory has none; `namedPlugin` gives it one.
import type { AgentPlugin } from "./types.js";

/** `plugin` with `name` as its function name (the same function object). */
export function namedPlugin(name: string, plugin: AgentPlugin): AgentPlugin {
  return Object.defineProperty(plugin, "name", { value: name, configurable: true });
}
