// LIVE: Gemini explicit context caching against the real API, skipped (with the reason printed)
// unless GEMINI_API_KEY is set. A two-turn session with a tool call behind a ~5k-token session
// prefix: the geminiContextCache plugin creates one cache, every request names it and reads it
// (explicit caches are guaranteed, unlike implicit ones), and the cache is deleted on dispose.
// Model: KEELSON_LIVE_GEMINI_MODEL, else gemini-2.5-flash.
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { type GeminiContextCacheEvent, geminiContextCache } from "../../src/context-cache/index.js";
import { GeminiProvider } from "../../src/llm/index.js";
import { createAgent } from "../../src/loop/index.js";
import type { Message } from "../../src/messages/index.js";
import type { SessionEvent } from "../../src/session/index.js";
import { defineTool } from "../../src/tools/index.js";

const absent = !process.env.GEMINI_API_KEY;
if (absent) console.log("skipping live Gemini context-cache test: GEMINI_API_KEY is not set");

const readTool = defineTool({
  name: "read",
  description: "Reads a file and returns its contents.",
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `${path}:\nalpha\nbeta\ngamma`,
});

const prefix: Message[] = [
  {
    role: "user",
    content: [
      {
        type: "text",
        text: `<system-reminder>Available skills:${Array.from({ length: 2500 }, (_, i) => ` skill${i.toString(36)}`).join("")}</system-reminder>`,
      },
    ],
  },
];

describe.skipIf(absent)("live Gemini explicit context cache", () => {
  test("one cache for the frozen prefix, read on every request, deleted on dispose", async () => {
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
    expect(events.filter((e) => e.kind === "created")).toHaveLength(1);
    const usage = agent.session.events
      .filter((e): e is SessionEvent<"assistant/message"> => e.type === "assistant/message")
      .map((e) => e.data.usage!);
    for (const [i, u] of usage.entries())
      expect(u.cacheReadTokens, `request ${i + 1}: ${JSON.stringify(u)}`).toBeGreaterThan(0);
    await agent.dispose();
  }, 180_000);
});
