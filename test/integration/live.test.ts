// LIVE tests against the real APIs, one per provider, each skipped (with the reason printed
// once) unless its key is set: a two-turn session with a tool call behind a ~3k-token session
// prefix must report cache reads on every request after the first. Never runs without a key.
// Models: KEELSON_LIVE_<PROVIDER>_MODEL, else a small default. (claude-haiku-4-5 caches only
// prefixes of 4096+ tokens, so the Anthropic default is claude-sonnet-4-5, whose floor is 1024.)
// Gemini's implicit caching is best effort (no guarantee of a hit), so its test asserts the turn
// and normalized usage, not the reads. Bedrock and Vertex authenticate from the AWS chain / Google
// ADC, which a machine may hold for other reasons: they run only when KEELSON_LIVE_BEDROCK=1 /
// KEELSON_LIVE_VERTEX=1 say so (Vertex also needs CLOUD_ML_REGION and ANTHROPIC_VERTEX_PROJECT_ID).
// Gemini's explicit context caching (the geminiContextCache plugin) has its own test: one cache
// for the frozen prefix, read on every request (explicit caches are not best effort), deleted on
// dispose.
import { describe, expect, test } from "vitest";
import { type GeminiContextCacheEvent, geminiContextCache } from "../../src/context-cache/index.js";
import {
  AnthropicProvider,
  GeminiProvider,
  OpenAICompatibleProvider,
  OpenAIResponsesProvider,
  type Provider,
} from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import { expectClosedLog } from "../loop/loop-support.js";
import { z } from "zod";
import type { Message } from "../../src/messages/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { defineTool } from "../../src/tools/index.js";

interface LiveProvider {
  readonly name: string;
  readonly keyVar:
    | "ANTHROPIC_API_KEY"
    | "OPENAI_API_KEY"
    | "DEEPSEEK_API_KEY"
    | "GEMINI_API_KEY"
    | "KEELSON_LIVE_BEDROCK"
    | "KEELSON_LIVE_VERTEX";
  /** False where the provider's prompt cache is best effort (Gemini implicit caching). */
  readonly cacheGuaranteed?: boolean;
  readonly modelVar: string;
  readonly defaultModel: string;
  readonly maxTokens: number;
  readonly provider: () => Provider;
}

const LIVE: readonly LiveProvider[] = [
  {
    name: "Anthropic",
    keyVar: "ANTHROPIC_API_KEY",
    modelVar: "KEELSON_LIVE_ANTHROPIC_MODEL",
    defaultModel: "claude-sonnet-4-5",
    maxTokens: 400,
    provider: () => new AnthropicProvider(),
  },
  // gpt-5-mini spends reasoning tokens out of the same budget: leave it room for an answer.
  {
    name: "OpenAI",
    keyVar: "OPENAI_API_KEY",
    modelVar: "KEELSON_LIVE_OPENAI_MODEL",
    defaultModel: "gpt-5-mini",
    maxTokens: 4000,
    provider: () => new OpenAICompatibleProvider({ flavor: "openai" }),
  },
  // The Responses API, stateless (store false): the second turn sends the first turn's
  // encrypted reasoning back, which the API must accept.
  {
    name: "OpenAI Responses",
    keyVar: "OPENAI_API_KEY",
    modelVar: "KEELSON_LIVE_OPENAI_RESPONSES_MODEL",
    defaultModel: "openai-responses:gpt-5.4-mini",
    maxTokens: 4000,
    provider: () => new OpenAIResponsesProvider(),
  },
  {
    name: "DeepSeek",
    keyVar: "DEEPSEEK_API_KEY",
    modelVar: "KEELSON_LIVE_DEEPSEEK_MODEL",
    defaultModel: "deepseek-chat",
    maxTokens: 400,
    provider: () => new OpenAICompatibleProvider({ flavor: "deepseek" }),
  },
  {
    name: "Gemini",
    keyVar: "GEMINI_API_KEY",
    modelVar: "KEELSON_LIVE_GEMINI_MODEL",
    defaultModel: "gemini-2.5-flash",
    maxTokens: 4000,
    cacheGuaranteed: false,
    provider: () => new GeminiProvider(),
  },
  {
    name: "Anthropic on Bedrock",
    keyVar: "KEELSON_LIVE_BEDROCK",
    modelVar: "KEELSON_LIVE_BEDROCK_MODEL",
    defaultModel: "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
    maxTokens: 400,
    provider: () => new AnthropicProvider({ platform: "bedrock" }),
  },
  {
    name: "Anthropic on Vertex",
    keyVar: "KEELSON_LIVE_VERTEX",
    modelVar: "KEELSON_LIVE_VERTEX_MODEL",
    defaultModel: "claude-sonnet-4-5@20250929",
    maxTokens: 400,
    provider: () => new AnthropicProvider({ platform: "vertex" }),
  },
];

const LIVE_TIMEOUT_MS = 180_000;

// Self-contained (no emulator import): this file costs nothing when every key is absent.
const readTool = defineTool({
  name: "read",
  description: "Reads a file and returns its contents.",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `${path}:\nalpha\nbeta\ngamma`,
});

/** A ~3k-token `<system-reminder>` opener of distinct words. */
const prefix: Message[] = [
  {
    role: "user",
    content: [
      {
        type: "text",
        text: `<system-reminder>Available skills:${Array.from({ length: 1100 }, (_, i) => ` skill${i.toString(36)}`).join("")}</system-reminder>`,
      },
    ],
  },
];

for (const live of LIVE) {
  const absent = !process.env[live.keyVar];
  if (absent) console.log(`skipping live ${live.name} test: ${live.keyVar} is not set`);

  describe.skipIf(absent)(`live ${live.name}`, () => {
    test(
      "a two-turn session with a tool call behind a ~3k-token prefix reads the cache on every request after the first",
      async () => {
        const model = process.env[live.modelVar] || live.defaultModel;
        const agent = createAgent({
          provider: live.provider(),
          model,
          maxTokens: live.maxTokens,
          system: "You are a terse assistant. When asked about a file, call the read tool; never guess its contents.",
          tools: [readTool],
          plugins: [
            (host) => void host.on("agent/session-prefix", async (_payload, next) => [...prefix, ...(await next())]),
          ],
        });
        expect(
          (await agent.send("Use the read tool on notes.txt, then tell me how many lines it has.")).reason,
        ).toEqual({ kind: "completed" });
        expect((await agent.send("Thanks. Reply with one word: done.")).reason).toEqual({ kind: "completed" });

        expect(agent.session.events.some((e) => e.type === "tool/call")).toBe(true);
        const list = agent.session.events
          .filter((e): e is SessionEvent<"assistant/message"> => e.type === "assistant/message")
          .map((e) => e.data.usage!);
        expect(list.length).toBeGreaterThanOrEqual(3);
        for (const [i, usage] of list.entries()) {
          if (i > 0 && live.cacheGuaranteed !== false)
            expect(usage.cacheReadTokens, `request ${i + 1} of ${model}: ${JSON.stringify(usage)}`).toBeGreaterThan(0);
        }
        expectClosedLog(agent);
        await agent.dispose();
      },
      LIVE_TIMEOUT_MS,
    );
  });
}

const noGeminiKey = !process.env.GEMINI_API_KEY;
if (noGeminiKey) console.log("skipping live Gemini context-cache test: GEMINI_API_KEY is not set");

describe.skipIf(noGeminiKey)("live Gemini explicit context cache", () => {
  test(
    "one cache for the frozen prefix, read on every request, deleted on dispose",
    async () => {
      const model = process.env.KEELSON_LIVE_GEMINI_MODEL || "gemini-2.5-flash";
      const provider = new GeminiProvider();
      const events: GeminiContextCacheEvent[] = [];
      const agent = createAgent({
        provider,
        model,
        maxTokens: 4000,
        system: "You are a terse assistant. When asked about a file, call the read tool; never guess its contents.",
        tools: [readTool],
        plugins: [
          (host) => void host.on("agent/session-prefix", async (_payload, next) => [...prefix, ...(await next())]),
          geminiContextCache({
            client: provider,
            minTokens: 1024, // the API's minimum for explicit caches
            ttlSeconds: 300,
            deleteOnDispose: true,
            onEvent: (e) => events.push(e),
          }),
        ],
      });
      expect((await agent.send("Use the read tool on notes.txt, then tell me how many lines it has.")).reason).toEqual({
        kind: "completed",
      });
      expect((await agent.send("Thanks. Reply with one word: done.")).reason).toEqual({ kind: "completed" });
      expect(
        events.filter((e) => e.kind === "created"),
        JSON.stringify(events),
      ).toHaveLength(1);
      const usage = agent.session.events
        .filter((e): e is SessionEvent<"assistant/message"> => e.type === "assistant/message")
        .map((e) => e.data.usage!);
      for (const [i, u] of usage.entries())
        expect(u.cacheReadTokens, `request ${i + 1}: ${JSON.stringify(u)}`).toBeGreaterThan(0);
      expectClosedLog(agent);
      await agent.dispose();
    },
    LIVE_TIMEOUT_MS,
  );
});
