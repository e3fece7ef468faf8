// The Chat Completions flavors: what differs between OpenAI, DeepSeek, the local servers (vLLM,
// llama.cpp's server, Ollama, LM Studio) and any other compatible server — where requests go by
// default, which key they take, and the wire options (wire.ts) each needs. Usage fields need no
// flavor: the stream mapper reads whichever a server sends (stream.ts).
import { ProviderError } from "../types.js";
import type { ChatWireOptions } from "./wire.js";

export type ChatFlavor = "openai" | "deepseek" | "compatible" | "vllm" | "llamacpp" | "ollama" | "lmstudio";

/** The local OpenAI-compatible servers Keelson knows by name. */
export const LOCAL_FLAVORS = ["vllm", "llamacpp", "ollama", "lmstudio"] as const;
export type LocalFlavor = (typeof LOCAL_FLAVORS)[number];

interface FlavorInfo {
  /** Including `/v1`; undefined: the SDK's own (OpenAI) or none (compatible: required). */
  readonly baseURL?: string;
  /** The environment variable holding the key. */
  readonly keyEnv?: string;
  /** Without a key the adapter refuses to start (hosted APIs); local servers get a placeholder. */
  readonly keyRequired: boolean;
}

export const FLAVORS: { readonly [F in ChatFlavor]: FlavorInfo } = {
  openai: { keyEnv: "OPENAI_API_KEY", keyRequired: true },
  deepseek: { baseURL: "https://api.deepseek.com/v1", keyEnv: "DEEPSEEK_API_KEY", keyRequired: true },
  compatible: { keyRequired: false },
  // `vllm serve` listens on 8000; `--api-key` (or $VLLM_API_KEY on the server) makes it check keys.
  vllm: { baseURL: "http://localhost:8000/v1", keyEnv: "VLLM_API_KEY", keyRequired: false },
  // `llama-server` listens on 8080; `--api-key` makes it check keys.
  llamacpp: { baseURL: "http://localhost:8080/v1", keyEnv: "LLAMACPP_API_KEY", keyRequired: false },
  ollama: { baseURL: "http://localhost:11434/v1", keyRequired: false },
  lmstudio: { baseURL: "http://localhost:1234/v1", keyRequired: false },
};

/** The wire mapping a flavor uses (also what `keelson requests --wire` replays). */
export function chatWireOptions(options: {
  readonly flavor: ChatFlavor;
  readonly systemRole?: "system" | "developer";
  readonly promptCacheKey?: boolean;
  readonly cachePrompt?: boolean;
}): ChatWireOptions {
  const { flavor } = options;
  return {
    systemRole: options.systemRole ?? "system",
    maxTokensField: flavor === "openai" ? "max_completion_tokens" : "max_tokens",
    promptCacheKey: options.promptCacheKey ?? flavor === "openai",
    reasoningReplay: flavor === "deepseek" ? "tool-turns" : "none",
    outputMode: flavor === "deepseek" ? "json_object" : "json_schema",
    // llama.cpp keeps a slot's KV cache for the next request only when asked (older servers
    // default to false); other servers cache on their own and may refuse unknown fields.
    cachePrompt: options.cachePrompt ?? flavor === "llamacpp",
  };
}

export interface ClientOptions {
  readonly apiKey: string;
  readonly baseURL?: string;
}

/**
 * The SDK client options for a flavor. Hosted flavors need a key (a ProviderError('auth') naming
 * the variable otherwise); local and compatible servers get only their own key — never the
 * OpenAI one from the environment — or a placeholder, as they usually check none.
 */
export function flavorClientOptions(options: {
  readonly flavor: ChatFlavor;
  readonly apiKey?: string;
  readonly baseURL?: string;
}): ClientOptions {
  const info = FLAVORS[options.flavor];
  const baseURL = options.baseURL ?? info.baseURL;
  if (options.flavor === "compatible" && !baseURL)
    throw new ProviderError(
      "invalid-request",
      `OpenAICompatibleProvider(flavor "compatible") needs a baseURL (including /v1)`,
    );
  const apiKey = options.apiKey || (info.keyEnv === undefined ? undefined : process.env[info.keyEnv]);
  if (!apiKey && info.keyRequired)
    throw new ProviderError("auth", `no API key for the ${options.flavor} provider: set ${info.keyEnv} or pass apiKey`);
  return { apiKey: apiKey || "no-key", ...(baseURL === undefined ? {} : { baseURL }) };
}
