// providerFromEnv: the provider `keelson` would use, for applications — the model from an
// explicit selector, `$KEELSON_MODEL` or the first API key set (model-choice.ts), and the
// adapter for it with the key and base URL from the same environment. The emulator is a layer
// below this one's dependants (src/emulator imports llm), so a choice of `emulator:*` — or no key
// at all — is a `ModelChoiceError`, not a silent offline model; start one with `startEmulator()`.
import { AnthropicProvider } from "./anthropic/index.js";
import { GeminiProvider } from "./gemini/index.js";
import { apiKeyFor, BASE_URL_ENV, chooseModelFromEnv, ModelChoiceError, VERTEX_ENV } from "./model-choice.js";
import { OpenAICompatibleProvider } from "./openai/index.js";
import { OpenAIResponsesProvider } from "./openai-responses/index.js";
import type { NoticeSink } from "./reasoning-carryover.js";
import type { Provider } from "./types.js";

export interface ProviderFromEnvOptions {
  /** A `provider:model` selector; default `$KEELSON_MODEL`, else the first provider whose key is set. */
  readonly model?: string;
  /** Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The adapter's notices (e.g. another API's reasoning left out of a request); default a process warning. */
  readonly onNotice?: NoticeSink;
}

export interface ProviderFromEnv {
  readonly provider: Provider;
  /** The `provider:model` selector to pass to `createAgent` as `model`. */
  readonly model: string;
  /** Where the provider's requests go. */
  readonly baseURL: string;
}

/**
 * The provider and model the environment names: `anthropic:*` → `AnthropicProvider`
 * (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`), `openai:*` / `deepseek:*` →
 * `OpenAICompatibleProvider` of that flavor (`OPENAI_*` / `DEEPSEEK_*`), `openai-responses:*` →
 * `OpenAIResponsesProvider` (`OPENAI_*`), `vllm:*` / `llamacpp:*` / `ollama:*` / `lmstudio:*` →
 * that local flavor (`<NAME>_BASE_URL`, else its localhost default; `VLLM_API_KEY` /
 * `LLAMACPP_API_KEY` when set), `gemini:*` →
 * `GeminiProvider` (`GEMINI_API_KEY` or `GOOGLE_API_KEY`, `GOOGLE_GEMINI_BASE_URL`),
 * `bedrock:*` / `vertex:*` → `AnthropicProvider` on that platform (the platform SDK's own
 * environment: AWS chain and `AWS_REGION`; Google ADC, `CLOUD_ML_REGION`,
 * `ANTHROPIC_VERTEX_PROJECT_ID`; base URLs `ANTHROPIC_BEDROCK_BASE_URL` / `ANTHROPIC_VERTEX_BASE_URL`). Throws
 * `ModelChoiceError` — `bad-model`, `missing-key` (naming the variable, never a key) or
 * `no-provider` (no key set, or an `emulator:*` selector).
 */
export function providerFromEnv(options: ProviderFromEnvOptions = {}): ProviderFromEnv {
  const env = options.env ?? process.env;
  const choice = chooseModelFromEnv(options.model, env);
  if (choice.provider === "emulator")
    throw new ModelChoiceError(
      "no-provider",
      choice.implicit
        ? "no provider in the environment: set ANTHROPIC_API_KEY, OPENAI_API_KEY, DEEPSEEK_API_KEY or GEMINI_API_KEY, or KEELSON_MODEL=provider:model (bedrock:… and vertex:… are chosen only by name)"
        : `${choice.model} is the offline emulator: start one with startEmulator() and point an AnthropicProvider at its anthropicBaseURL`,
    );
  const apiKey = apiKeyFor(choice, env);
  const baseURL = env[BASE_URL_ENV[choice.provider]] || undefined;
  const at = {
    ...(baseURL === undefined ? {} : { baseURL }),
    ...(options.onNotice === undefined ? {} : { onNotice: options.onNotice }),
  };
  const key = apiKey === undefined ? {} : { apiKey };
  const provider = ((): Provider & { readonly baseURL: string } => {
    switch (choice.provider) {
      case "anthropic":
        return new AnthropicProvider({ apiKey: apiKey!, ...at });
      case "openai-responses":
        return new OpenAIResponsesProvider({ ...key, ...at });
      case "gemini":
        return new GeminiProvider({ apiKey: apiKey!, ...at });
      case "bedrock":
        return new AnthropicProvider({ platform: "bedrock", ...at, platformOptions: bedrockOptions(env) });
      case "vertex":
        return new AnthropicProvider({ platform: "vertex", ...at, platformOptions: vertexOptions(env) });
      default:
        // openai, deepseek (a key, checked above) and the local servers (an optional key).
        return new OpenAICompatibleProvider({ flavor: choice.provider, ...key, ...at });
    }
  })();
  return { provider, model: choice.model, baseURL: provider.baseURL };
}

/** The Bedrock SDK's region, from the environment given (the SDK would read `process.env`). */
function bedrockOptions(env: Readonly<Record<string, string | undefined>>): Record<string, unknown> {
  return env.AWS_REGION ? { awsRegion: env.AWS_REGION } : {};
}

/** The Vertex SDK's region and project, from the environment given. */
function vertexOptions(env: Readonly<Record<string, string | undefined>>): Record<string, unknown> {
  return {
    ...(env[VERTEX_ENV.region] ? { region: env[VERTEX_ENV.region] } : {}),
    ...(env[VERTEX_ENV.projectId] ? { projectId: env[VERTEX_ENV.projectId] } : {}),
  };
}
