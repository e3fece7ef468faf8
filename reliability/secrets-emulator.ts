// The secrets suite's model behind the emulator: the rule-based model (lists, reads, summarizes
// tool results), plus two markers in the latest user prompt that drive provider error paths over
// HTTP: `[flaky]` answers the first attempt of that prompt with a retryable 500, `[auth-fail]`
// answers with a 401 authentication error (after the flaky attempt, when both are present).
import { type EmulatorModel, type EmulatorRequest, RuleBasedModel } from "../src/emulator/index.js";
import type { ScriptedReply } from "../src/llm/index.js";

export const FLAKY = "[flaky]";
export const AUTH_FAIL = "[auth-fail]";

function latestPrompt(request: EmulatorRequest): string {
  const user = request.messages.findLast((m) => m.role === "user");
  return (user?.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

export class SecretsModel implements EmulatorModel {
  readonly #rules = new RuleBasedModel();
  /** Prompts whose flaky first attempt already failed. */
  readonly #flaked = new Set<string>();

  reply(request: EmulatorRequest): ScriptedReply {
    const prompt = latestPrompt(request);
    if (prompt.includes(FLAKY) && !this.#flaked.has(prompt)) {
      this.#flaked.add(prompt);
      return {
        error: {
          code: "server-error",
          message: "The server had an error while processing your request.",
          retryable: true,
        },
      };
    }
    if (prompt.includes(AUTH_FAIL)) return { error: { code: "auth", message: "invalid x-api-key" } };
    return this.#rules.reply(request);
  }
}
