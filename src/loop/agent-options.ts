// Reading `createAgent`'s options: the checks every agent's options pass, the provider a model
// id resolves to, and the defaults that depend on the environment.
import { previewJson } from "../json/index.js";
import type { Provider } from "../llm/core.js";
import { isSafeSessionId } from "../session/index.js";
import { type AgentOptions, LoopError } from "./types.js";

/**
 * The provider a model runs on: `provider`, else `providers[<prefix>]` of a `provider:model` id.
 * Called while the agent is built, before its store creates the session: a provider that is not
 * one (a name as a string, an object without `stream`) is refused here, with nothing written.
 */
export function resolveProvider(options: AgentOptions): Provider {
  if (options.provider !== undefined) return checkedProvider(options.provider, "provider");
  const id = options.model.includes(":") ? options.model.slice(0, options.model.indexOf(":")) : undefined;
  const provider = id === undefined ? undefined : options.providers?.[id];
  if (provider === undefined) {
    throw new LoopError(
      "unknown-provider",
      `no provider for model ${JSON.stringify(options.model)}: pass \`provider\`, or \`providers\` with a key matching its "provider:" prefix`,
    );
  }
  return checkedProvider(provider, `providers.${id}`);
}

/** `value` if it can stream a response (`LoopError('invalid-options')` naming `where` otherwise). */
function checkedProvider(value: unknown, where: string): Provider {
  if (typeof (value as Partial<Provider> | null)?.stream === "function") return value as Provider;
  throw new LoopError(
    "invalid-options",
    `${where} must be a Provider (an object with a \`stream\` method, e.g. new AnthropicProvider()), got ${previewJson(value, 80)}`,
  );
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
  const cap = options.maxToolResultChars;
  if (cap !== undefined && cap !== Number.POSITIVE_INFINITY && !(Number.isSafeInteger(cap) && cap > 0)) {
    throw new LoopError(
      "invalid-options",
      `maxToolResultChars must be a positive integer or Infinity, got ${previewJson(cap, 40)}`,
    );
  }
}

/**
 * Throws `LoopError('invalid-id')` for a `sessionId` no store could hold — the code the stores
 * (and so resumeAgent / forkAgent) give a bad id, not the header's.
 */
export function checkNewSessionId(id: unknown): void {
  if (id !== undefined && (typeof id !== "string" || !isSafeSessionId(id)))
    throw new LoopError("invalid-id", `${previewJson(id)} is not a valid session id`);
}
