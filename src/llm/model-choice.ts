// Which model the environment asks for, as `keelson` picks it: a `provider:model` selector
// (an explicit one, else `$KEELSON_MODEL`), else the first provider whose API key is set
// (Anthropic, OpenAI, DeepSeek, Gemini), else the built-in emulator. Bedrock and Vertex are
// chosen only by name: their credentials (the AWS chain, Google ADC) are too often present for
// other reasons to pick a provider by. So are OpenAI's Responses API (`openai-responses:`, the
// OpenAI key) and the local servers (`vllm:`, `llamacpp:`, `ollama:`, `lmstudio:`; no key needed). Pure over the environment object it is given; key values
// are only ever returned to the caller, never put in a message.
import { KeelsonError } from "../errors/index.js";

export const PROVIDER_NAMES = [
  "anthropic",
  "openai",
  "openai-responses",
  "deepseek",
  "gemini",
  "bedrock",
  "vertex",
  "vllm",
  "llamacpp",
  "ollama",
  "lmstudio",
  "emulator",
] as const;
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

/** The local OpenAI-compatible servers: no key required, no default model (the server's loaded one). */
type LocalServer = "vllm" | "llamacpp" | "ollama" | "lmstudio";

/** The model each provider gets when only its key is set (and the usual one for the others). */
export const DEFAULT_MODEL_OF: Readonly<Record<Exclude<ProviderName, LocalServer>, string>> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-5.1",
  "openai-responses": "gpt-5.4",
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
  "openai-responses": "OPENAI_API_KEY",
  deepseek: "DEEPSEEK_API_KEY",
  gemini: "GEMINI_API_KEY",
} as const satisfies Readonly<Partial<Record<ProviderName, string>>>;

/** The environment variable holding a local server's key, for servers started with one (optional). */
export const LOCAL_KEY_ENV = {
  vllm: "VLLM_API_KEY",
  llamacpp: "LLAMACPP_API_KEY",
} as const satisfies Readonly<Partial<Record<LocalServer, string>>>;

const LOCAL_SERVERS: readonly string[] = ["vllm", "llamacpp", "ollama", "lmstudio"] satisfies LocalServer[];

/** Gemini's second key variable (the `@google/genai` SDK's other name for it). */
export const GEMINI_KEY_FALLBACK_ENV = "GOOGLE_API_KEY";

/** The environment variable overriding each real provider's base URL (the SDKs' own names for Gemini, Bedrock, Vertex). */
export const BASE_URL_ENV = {
  anthropic: "ANTHROPIC_BASE_URL",
  openai: "OPENAI_BASE_URL",
  "openai-responses": "OPENAI_BASE_URL",
  deepseek: "DEEPSEEK_BASE_URL",
  gemini: "GOOGLE_GEMINI_BASE_URL",
  bedrock: "ANTHROPIC_BEDROCK_BASE_URL",
  vertex: "ANTHROPIC_VERTEX_BASE_URL",
  vllm: "VLLM_BASE_URL",
  llamacpp: "LLAMACPP_BASE_URL",
  ollama: "OLLAMA_BASE_URL",
  lmstudio: "LMSTUDIO_BASE_URL",
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
 * The API key `choice` needs (undefined for the emulator, Bedrock and Vertex; a local server's
 * optional key, or undefined); `ModelChoiceError('missing-key')` naming the variable when unset —
 * for Vertex, when its region is unset (the SDK cannot build a URL without it).
 */
export function apiKeyFor(
  choice: Pick<ModelChoice, "provider" | "model">,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const { provider } = choice;
  if (provider === "emulator" || provider === "bedrock") return undefined;
  if (LOCAL_SERVERS.includes(provider)) {
    const variable = (LOCAL_KEY_ENV as Readonly<Record<string, string>>)[provider];
    return (variable === undefined ? undefined : env[variable]) || undefined;
  }
  if (provider === "vertex") {
    if (!env[VERTEX_ENV.region])
      throw new ModelChoiceError("missing-key", `no region for ${choice.model}: set ${VERTEX_ENV.region}`);
    return undefined;
  }
  const variable = API_KEY_ENV[provider as keyof typeof API_KEY_ENV];
  const key = env[variable] || (provider === "gemini" ? env[GEMINI_KEY_FALLBACK_ENV] : undefined);
  if (!key) {
    const names = provider === "gemini" ? `${API_KEY_ENV.gemini} (or ${GEMINI_KEY_FALLBACK_ENV})` : variable;
    throw new ModelChoiceError("missing-key", `no API key for ${choice.model}: set ${names}`);
  }
  return key;
}
