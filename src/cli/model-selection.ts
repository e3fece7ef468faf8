// Model selection for `run`, `resume` and `chat`: `provider:model` from `--model`, else
// `$KEELSON_MODEL`, else the first provider whose key is set, else the built-in emulator — the
// library's own choice (src/llm model-choice.ts, `providerFromEnv`), with its refusals made
// CliErrors (exit 2, the same words). An explicit provider whose key is missing fails before
// anything is written. Key values are never printed.
import {
  apiKeyFor,
  chooseModelFromEnv,
  type ModelChoice,
  ModelChoiceError,
  type ProviderName,
  parseModelSelector,
} from "../llm/model-choice.js";
import type { Provider } from "../llm/types.js";
import { CliError } from "./errors.js";
import { terminalLine } from "./terminal-text.js";

export { PROVIDER_NAMES as PROVIDERS } from "../llm/model-choice.js";
export type { ModelChoice, ProviderName };

/** A library refusal (bad selector, missing key) as the CLI's bad-input error. */
function asCliError<T>(choose: () => T): T {
  try {
    return choose();
  } catch (error) {
    if (error instanceof ModelChoiceError) throw new CliError(error.message, 2, { cause: error });
    throw error;
  }
}

/** Parses `provider:model`; throws a CliError naming the bad selector. */
export function parseModel(selector: string): { provider: ProviderName; model: string } {
  return asCliError(() => parseModelSelector(selector));
}

export function chooseModel(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): ModelChoice {
  return asCliError(() => chooseModelFromEnv(flag, env));
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
  return asCliError(() => apiKeyFor(choice, env));
}

/** Builds the provider for a choice; checks keys up front so nothing is written on failure. */
export async function openProvider(
  choice: ModelChoice,
  env: NodeJS.ProcessEnv = process.env,
  notice: (line: string) => void = () => {},
): Promise<ProviderHandle> {
  requireKey(choice, env);
  // Loaded here, not at the top: `keelson show` and friends never pay for the SDKs.
  if (choice.provider === "emulator") {
    const [{ AnthropicProvider }, { startEmulator }] = await Promise.all([
      import("../llm/index.js"),
      import("../emulator/index.js"),
    ]);
    const emulator = await startEmulator({ model: "rule-based" });
    notice(
      `keelson: using the built-in offline emulator (rule-based model${choice.implicit ? ", no API key found" : ""}); for a real model set ANTHROPIC_API_KEY, OPENAI_API_KEY, DEEPSEEK_API_KEY or GEMINI_API_KEY, or pass --model provider:model`,
    );
    const provider = new AnthropicProvider({ apiKey: "emulator", baseURL: emulator.anthropicBaseURL });
    return { provider, baseURL: provider.baseURL, close: () => emulator.close() };
  }
  const { providerFromEnv } = await import("../llm/index.js");
  const { provider, baseURL } = asCliError(() =>
    // The notice names APIs read from the log: escaped for the terminal.
    providerFromEnv({ model: choice.model, env, onNotice: (n) => notice(terminalLine(`keelson: ${n.message}`)) }),
  );
  return { provider, baseURL, close: async () => {} };
}
