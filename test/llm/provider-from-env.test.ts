// Issue #20 ("what a new user tripped on"): there was no exported way to pick a provider from the
// environment the way `keelson` does. `providerFromEnv()` (src/llm, exported from the package
// root) now makes that choice, and the CLI uses it.
import { describe, expect, test } from "vitest";
import {
  AnthropicProvider,
  chooseModelFromEnv,
  createAgent,
  GeminiProvider,
  ModelChoiceError,
  OpenAICompatibleProvider,
  OpenAIResponsesProvider,
  providerFromEnv,
  startEmulator,
} from "../../src/index.js";

const SECRET = "sk-very-secret-value";

/** The error `run` throws, as `{ code, message }`. */
function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ModelChoiceError);
    const { code, message } = error as ModelChoiceError;
    return { code, message };
  }
  throw new Error("expected a ModelChoiceError");
}

describe("providerFromEnv", () => {
  test("takes the first provider whose key is set, with its default model and base URL", () => {
    const anthropic = providerFromEnv({ env: { ANTHROPIC_API_KEY: SECRET, OPENAI_API_KEY: SECRET } });
    expect(anthropic.provider).toBeInstanceOf(AnthropicProvider);
    expect(anthropic.model).toBe("anthropic:claude-sonnet-4-5");
    expect(anthropic.baseURL).toBe("https://api.anthropic.com");

    const openai = providerFromEnv({ env: { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" } });
    expect(openai.provider).toBeInstanceOf(OpenAICompatibleProvider);
    expect(openai.model).toBe("openai:gpt-5.1");
    expect(openai.baseURL).toBe("http://127.0.0.1:9/v1");

    const deepseek = providerFromEnv({ env: { DEEPSEEK_API_KEY: SECRET } });
    expect(deepseek.model).toBe("deepseek:deepseek-chat");
  });

  test("Gemini by its key (GOOGLE_API_KEY as the fallback); Bedrock and Vertex only by name, from their SDKs' environment", () => {
    const gemini = providerFromEnv({ env: { GEMINI_API_KEY: SECRET } });
    expect(gemini.provider).toBeInstanceOf(GeminiProvider);
    expect(gemini.model).toBe("gemini:gemini-2.5-pro");
    expect(gemini.baseURL).toBe("https://generativelanguage.googleapis.com");
    const google = providerFromEnv({
      env: { GOOGLE_API_KEY: SECRET, GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:9" },
      model: "gemini:gemini-2.5-flash",
    });
    expect(google.baseURL).toBe("http://127.0.0.1:9");
    // GOOGLE_API_KEY alone does not pick Gemini: it is often set for other Google APIs.
    expect(refusal(() => providerFromEnv({ env: { GOOGLE_API_KEY: SECRET } })).code).toBe("no-provider");
    expect(refusal(() => providerFromEnv({ env: {}, model: "gemini:gemini-2.5-pro" }))).toEqual({
      code: "missing-key",
      message: "no API key for gemini:gemini-2.5-pro: set GEMINI_API_KEY (or GOOGLE_API_KEY)",
    });

    const bedrock = providerFromEnv({
      env: { AWS_REGION: "eu-west-1" },
      model: "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0",
    });
    expect(bedrock.provider).toBeInstanceOf(AnthropicProvider);
    expect(bedrock.provider.id).toBe("bedrock");
    const vertex = providerFromEnv({
      env: {
        CLOUD_ML_REGION: "us-east5",
        ANTHROPIC_VERTEX_PROJECT_ID: "p",
        ANTHROPIC_VERTEX_BASE_URL: "http://127.0.0.1:9/v1",
      },
      model: "vertex:claude-sonnet-4-5@20250929",
    });
    expect(vertex.provider.id).toBe("vertex");
    expect(vertex.baseURL).toBe("http://127.0.0.1:9/v1");
    expect(refusal(() => providerFromEnv({ env: {}, model: "vertex:claude-sonnet-4-5@20250929" }))).toEqual({
      code: "missing-key",
      message: "no region for vertex:claude-sonnet-4-5@20250929: set CLOUD_ML_REGION",
    });
  });

  test("openai-responses:* is the Responses adapter with the OpenAI key and base URL; the key alone still picks Chat Completions", () => {
    const env = { OPENAI_API_KEY: SECRET, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" };
    const responses = providerFromEnv({ env, model: "openai-responses:gpt-5.4" });
    expect(responses.provider).toBeInstanceOf(OpenAIResponsesProvider);
    expect(responses.provider.id).toBe("openai-responses");
    expect(responses).toMatchObject({ model: "openai-responses:gpt-5.4", baseURL: "http://127.0.0.1:9/v1" });
    expect(
      providerFromEnv({ env: { ...env, KEELSON_MODEL: "openai-responses:gpt-5.4-mini" } }).provider,
    ).toBeInstanceOf(OpenAIResponsesProvider);
    expect(providerFromEnv({ env }).provider).toBeInstanceOf(OpenAICompatibleProvider);
    expect(refusal(() => providerFromEnv({ env: {}, model: "openai-responses:gpt-5.4" }))).toEqual({
      code: "missing-key",
      message: "no API key for openai-responses:gpt-5.4: set OPENAI_API_KEY",
    });
  });

  test("an explicit selector, else $KEELSON_MODEL, wins over the keys", () => {
    const env = { ANTHROPIC_API_KEY: SECRET, DEEPSEEK_API_KEY: SECRET, KEELSON_MODEL: "deepseek:deepseek-reasoner" };
    expect(providerFromEnv({ env }).model).toBe("deepseek:deepseek-reasoner");
    expect(providerFromEnv({ env, model: "anthropic:claude-opus-4-1" }).model).toBe("anthropic:claude-opus-4-1");
    expect(chooseModelFromEnv(undefined, {})).toEqual({
      provider: "emulator",
      model: "emulator:emulator-anthropic",
      implicit: true,
    });
  });

  test("refuses with a typed code, naming the variable and never a key", () => {
    expect(refusal(() => providerFromEnv({ env: {} })).code).toBe("no-provider");
    expect(refusal(() => providerFromEnv({ env: { ANTHROPIC_API_KEY: SECRET }, model: "emulator:x" })).code).toBe(
      "no-provider",
    );
    expect(refusal(() => providerFromEnv({ env: {}, model: "claude" }))).toMatchObject({ code: "bad-model" });
    const missing = refusal(() => providerFromEnv({ env: { OPENAI_API_KEY: SECRET, KEELSON_MODEL: "anthropic:x" } }));
    expect(missing).toEqual({ code: "missing-key", message: "no API key for anthropic:x: set ANTHROPIC_API_KEY" });
    expect(missing.message).not.toContain(SECRET);
  });

  test("the provider it builds runs a turn (against the emulator named by ANTHROPIC_BASE_URL)", async () => {
    const emulator = await startEmulator();
    try {
      const { provider, model } = providerFromEnv({
        env: { ANTHROPIC_API_KEY: "emulator", ANTHROPIC_BASE_URL: emulator.anthropicBaseURL },
        model: "anthropic:emulator-anthropic",
      });
      const agent = createAgent({ provider, model });
      const outcome = await agent.send("hello there");
      expect(outcome.reason.kind).toBe("completed");
      expect(outcome.text).toBe("Understood: hello there");
      await agent.dispose();
    } finally {
      await emulator.close();
    }
  });
});
