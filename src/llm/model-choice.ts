// Which model the environment asks for, as `keelson` picks it: a `provider:model` selector
// (an explicit one, else `$KEELSON_MODEL`), else the first provider whose API key is set
// (Anthropic, OpenAI, DeepSeek, Gemini), else the built-in emulator. Bedrock and Vertex are
// chosen only by name: their credentials (the AWS chain, Google ADC) are too often present for
// other reasons to pick a provider by. Pure over the environment object it is given; key values
// are only ever returned to the caller, never put in a message.
import { KeelsonError } from "../errors/index.js";

export const PROVIDER_NAMES = ["anthropic", "openai", "deepseek", "gemini", "bedrock", "vertex", "emulator"] as const;
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
  gemini: "gemini-2.5-pro",
  bedrock: "anthropic.claude-sonnet-4-5-20250929-v1:0",
  vertex: "claude-sonnet-4-5@20250929",
  emulator: "emulator-anthropic",
};

/** Providers an API key picks when nothing names a model, in order. */
const BY_KEY = ["anthropic", "openai", "deepseek", "gemini"] as const;

/**
 * The environment variable holding each API-key provider's key (Gemini also reads
 * `GOOGLE_API_KEY` when `GEMINI_API_KEY` is unset: `GEMINI_KEY_FALLBACK_ENV`). Bedrock and Vertex
 * have none: their SDKs authenticate from the AWS credential chain / Google ADC.
 */
export const API_KEY_ENV = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  deepseek: "DEEPSEEK_API_KEY",
  gemini: "GEMINI_API_KEY",
} as const satisfies Readonly<Partial<Record<ProviderName, string>>>;

/** Gemini's second key variable (the `@google/genai` SDK's other name for it). */
export const GEMINI_KEY_FALLBACK_ENV = "GOOGLE_API_KEY";

/** The environment variable overriding each real provider's base URL (the SDKs' own names for Gemini, Bedrock, Vertex). */
export const BASE_URL_ENV = {
  anthropic: "ANTHROPIC_BASE_URL",
  openai: "OPENAI_BASE_URL",
  deepseek: "DEEPSEEK_BASE_URL",
  gemini: "GOOGLE_GEMINI_BASE_URL",
  bedrock: "ANTHROPIC_BEDROCK_BASE_URL",
  vertex: "ANTHROPIC_VERTEX_BASE_URL",
} as const satisfies Readonly<Record<Exclude<ProviderName, "emulator">, string>>;

/** What Vertex needs from the environment (the vertex SDK's names); Bedrock needs nothing (`AWS_REGION` defaults to us-east-1). */
export const VERTEX_ENV = { region: "CLOUD_ML_REGION", projectId: "ANTHROPIC_VERTEX_PROJECT_ID" } as const;

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
  for (const provider of BY_KEY) {
    if (env[API_KEY_ENV[provider]])
      return { provider, model: `${provider}:${DEFAULT_MODEL_OF[provider]}`, implicit: false };
  }
  return { provider: "emulator", model: `emulator:${DEFAULT_MODEL_OF.emulator}`, implicit: true };
}

/**
 * The API key `choice` needs (undefined for the emulator, Bedrock and Vertex);
 * `ModelChoiceError('missing-key')` naming the variable when unset — for Vertex, when its region
 * is unset (the SDK cannot build a URL without it).
 */
export function apiKeyFor(
  choice: Pick<ModelChoice, "provider" | "model">,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const { provider } = choice;
  if (provider === "emulator" || provider === "bedrock") return undefined;
  if (provider === "vertex") {
    if (!env[VERTEX_ENV.region])
      throw new ModelChoiceError("missing-key", `no region for ${choice.model}: set ${VERTEX_ENV.region}`);
    return undefined;
  }
  const key = env[API_KEY_ENV[provider]] || (provider === "gemini" ? env[GEMINI_KEY_FALLBACK_ENV] : undefined);
  if (!key) {
    const names =
      provider === "gemini" ? `${API_KEY_ENV.gemini} (or ${GEMINI_KEY_FALLBACK_ENV})` : API_KEY_ENV[provider];
    throw new ModelChoiceError("missing-key", `no API key for ${choice.model}: set ${names}`);
  }
  return key;
}
