// Which model the environment asks for, as `keelson` picks it: a `provider:model` selector
// (an explicit one, else `$KEELSON_MODEL`), else the first provider whose API key is set
// (Anthropic, OpenAI, DeepSeek), else the built-in emulator. Pure over the environment object
// it is given; key values are only ever returned to the caller, never put in a message.
import { KeelsonError } from "../errors/index.js";

export const PROVIDER_NAMES = ["anthropic", "openai", "deepseek", "emulator"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** `bad-model`: not `provider:model`; `missing-key`: the provider's key variable is unset; `no-provider`: nothing in the environment names a real provider. */
export class ModelChoiceError extends KeelsonError<"bad-model" | "missing-key" | "no-provider"> {}

export interface ModelChoice {
  readonly provider: ProviderName;
  /** The full `provider:model` selector an agent logs. */
  readonly model: string;
  /** True when nothing chose the model: no selector, no `$KEELSON_MODEL`, no key (the emulator fallback). */
  readonly implicit: boolean;
}

/** The model each provider gets when only its key is set. */
export const DEFAULT_MODEL_OF: Readonly<Record<ProviderName, string>> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-5.1",
  deepseek: "deepseek-chat",
  emulator: "emulator-anthropic",
};

/** The environment variable holding each real provider's API key. */
export const API_KEY_ENV = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  deepseek: "DEEPSEEK_API_KEY",
} as const satisfies Readonly<Record<Exclude<ProviderName, "emulator">, string>>;

/** The environment variable overriding each real provider's base URL. */
export const BASE_URL_ENV = {
  anthropic: "ANTHROPIC_BASE_URL",
  openai: "OPENAI_BASE_URL",
  deepseek: "DEEPSEEK_BASE_URL",
} as const satisfies Readonly<Record<Exclude<ProviderName, "emulator">, string>>;

/** Parses `provider:model`; a `ModelChoiceError('bad-model')` naming the selector otherwise. */
export function parseModelSelector(selector: string): { provider: ProviderName; model: string } {
  const colon = selector.indexOf(":");
  const provider = selector.slice(0, colon);
  const model = selector.slice(colon + 1);
  if (colon <= 0 || model === "" || !(PROVIDER_NAMES as readonly string[]).includes(provider)) {
    throw new ModelChoiceError(
      "bad-model",
      `bad model ${JSON.stringify(selector.slice(0, 200))}: expected provider:model with provider one of ${PROVIDER_NAMES.join(", ")} (e.g. anthropic:claude-sonnet-4-5)`,
    );
  }
  return { provider: provider as ProviderName, model: `${provider}:${model}` };
}

/** The model `selector` names, else `$KEELSON_MODEL`, else the first provider with a key, else the emulator. */
export function chooseModelFromEnv(
  selector: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ModelChoice {
  const explicit = selector ?? (env.KEELSON_MODEL || undefined);
  if (explicit !== undefined) return { ...parseModelSelector(explicit), implicit: false };
  for (const provider of ["anthropic", "openai", "deepseek"] as const) {
    if (env[API_KEY_ENV[provider]])
      return { provider, model: `${provider}:${DEFAULT_MODEL_OF[provider]}`, implicit: false };
  }
  return { provider: "emulator", model: `emulator:${DEFAULT_MODEL_OF.emulator}`, implicit: true };
}

/** The API key `choice` needs (undefined for the emulator); `ModelChoiceError('missing-key')` naming the variable when unset. */
export function apiKeyFor(
  choice: Pick<ModelChoice, "provider" | "model">,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  if (choice.provider === "emulator") return undefined;
  const key = env[API_KEY_ENV[choice.provider]];
  if (!key)
    throw new ModelChoiceError("missing-key", `no API key for ${choice.model}: set ${API_KEY_ENV[choice.provider]}`);
  return key;
}
