// Model selection for `run` and `resume`: `provider:model` from `--model`, else `$KEELSON_MODEL`,
// else the first provider whose key is set, else the built-in emulator. An explicit provider
// whose key is missing is a CliError before anything is written.
import type { Provider } from "../llm/index.js";
import { CliError } from "./errors.js";

export const PROVIDERS = ["anthropic", "openai", "deepseek", "emulator"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ModelChoice {
  readonly provider: ProviderName;
  /** The full `provider:model` selector the agent logs. */
  readonly model: string;
  /** True when nothing chose the model: no flag, no env, no key (the emulator fallback). */
  readonly implicit: boolean;
}

const DEFAULTS: Readonly<Record<ProviderName, string>> = {
  anthropic: "claude-sonnet-4-5",
  openai: "gpt-5.1",
  deepseek: "deepseek-chat",
  emulator: "emulator-anthropic",
};
const KEY_ENV = { anthropic: "ANTHROPIC_API_KEY", openai: "OPENAI_API_KEY", deepseek: "DEEPSEEK_API_KEY" } as const;

/** Parses `provider:model`; throws a CliError naming the bad selector. */
export function parseModel(selector: string): { provider: ProviderName; model: string } {
  const colon = selector.indexOf(":");
  const provider = selector.slice(0, colon);
  const model = selector.slice(colon + 1);
  if (colon <= 0 || model === "" || !(PROVIDERS as readonly string[]).includes(provider)) {
    throw new CliError(
      `bad model ${JSON.stringify(selector)}: expected provider:model with provider one of ${PROVIDERS.join(", ")} (e.g. anthropic:claude-sonnet-4-5)`,
    );
  }
  return { provider: provider as ProviderName, model: `${provider}:${model}` };
}

export function chooseModel(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): ModelChoice {
  const explicit = flag ?? (env.KEELSON_MODEL || undefined);
  if (explicit !== undefined) return { ...parseModel(explicit), implicit: false };
  for (const provider of ["anthropic", "openai", "deepseek"] as const) {
    if (env[KEY_ENV[provider]]) return { provider, model: `${provider}:${DEFAULTS[provider]}`, implicit: false };
  }
  return { provider: "emulator", model: `emulator:${DEFAULTS.emulator}`, implicit: true };
}

export interface ProviderHandle {
  readonly provider: Provider;
  /** Where the provider's requests go (named in retry notices). */
  readonly baseURL: string;
  /** Stops an in-process emulator, when one was started. */
  close(): Promise<void>;
}

/** The API key an explicit provider needs; a CliError naming the variable when it is missing. */
export function requireKey(choice: ModelChoice, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (choice.provider === "emulator") return undefined;
  const key = env[KEY_ENV[choice.provider]];
  if (!key) throw new CliError(`no API key for ${choice.model}: set ${KEY_ENV[choice.provider]}`);
  return key;
}

/** Builds the provider for a choice; checks keys up front so nothing is written on failure. */
export async function openProvider(
  choice: ModelChoice,
  env: NodeJS.ProcessEnv = process.env,
  notice: (line: string) => void = () => {},
): Promise<ProviderHandle> {
  const key = requireKey(choice, env);
  // Loaded here, not at the top: `keelson show` and friends never pay for the SDKs.
  const { AnthropicProvider, OpenAICompatibleProvider } = await import("../llm/index.js");
  if (choice.provider === "emulator") {
    const { startEmulator } = await import("../emulator/index.js");
    const emulator = await startEmulator({ model: "rule-based" });
    notice(
      `keelson: using the built-in offline emulator (rule-based model${choice.implicit ? ", no API key found" : ""}); for a real model set ANTHROPIC_API_KEY, OPENAI_API_KEY or DEEPSEEK_API_KEY, or pass --model provider:model`,
    );
    const provider = new AnthropicProvider({ apiKey: "emulator", baseURL: emulator.anthropicBaseURL });
    return { provider, baseURL: provider.baseURL, close: () => emulator.close() };
  }
  if (key === undefined) throw new CliError(`no API key for ${choice.model}`);
  const provider =
    choice.provider === "anthropic"
      ? new AnthropicProvider({ apiKey: key, ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}) })
      : new OpenAICompatibleProvider({
          flavor: choice.provider,
          apiKey: key,
          ...(choice.provider === "openai" && env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
          ...(choice.provider === "deepseek" && env.DEEPSEEK_BASE_URL ? { baseURL: env.DEEPSEEK_BASE_URL } : {}),
        });
  return { provider, baseURL: provider.baseURL, close: async () => {} };
}
