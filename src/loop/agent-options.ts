// Reading `createAgent`'s options: the checks every agent's options pass, the provider a model
// id resolves to, and the defaults that depend on the environment.
import type { Provider } from "../llm/core.js";
import { type AgentOptions, LoopError } from "./types.js";

/** The provider a model runs on: `provider`, else `providers[<prefix>]` of a `provider:model` id. */
export function resolveProvider(options: AgentOptions): Provider {
  if (options.provider !== undefined) return options.provider;
  const id = options.model.includes(":") ? options.model.slice(0, options.model.indexOf(":")) : undefined;
  const provider = id === undefined ? undefined : options.providers?.[id];
  if (provider === undefined) {
    throw new LoopError(
      "unknown-provider",
      `no provider for model ${JSON.stringify(options.model)}: pass \`provider\`, or \`providers\` with a key matching its "provider:" prefix`,
    );
  }
  return provider;
}

/** The dev-mode invariant is on under vitest or with `KEELSON_INVARIANTS=1`. */
export function invariantsDefault(): boolean {
  return process.env.KEELSON_INVARIANTS === "1" || process.env.VITEST !== undefined;
}

/** Refuses options no agent can run with (`LoopError('invalid-options')`). */
export function validateOptions(options: AgentOptions): void {
  if (typeof options?.model !== "string" || options.model === "")
    throw new LoopError("invalid-options", "createAgent needs a `model` string");
  if (options.maxSteps !== undefined && !(Number.isSafeInteger(options.maxSteps) && options.maxSteps > 0)) {
    throw new LoopError("invalid-options", `maxSteps must be a positive integer, got ${options.maxSteps}`);
  }
}
