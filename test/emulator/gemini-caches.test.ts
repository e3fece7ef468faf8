// The emulator's Gemini explicit caches through the official SDK (`ai.caches.*`,
// `models.generateContent` with `cachedContent`): the real API's paths, JSON and errors — too
// small → 400 "Cached content is too small…", gone → 403 PERMISSION_DENIED "CachedContent not
// found (or permission denied)", cache plus system instruction/tools → 400 — the cached part
// reported as `cachedContentTokenCount`, caches private to their key and gone after their TTL.
import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmulatorServer, startEmulator } from "../../src/emulator/index.js";
import { GeminiProvider, toGeminiError } from "../../src/llm/gemini/index.js";
import { ProviderError } from "../../src/llm/index.js";

let emulator: EmulatorServer;
const LONG = Array.from({ length: 400 }, (_, i) => `Fact ${i}: item ${i % 13} weighs ${(i * 7) % 101} grams.`).join(
  "\n",
);
const sdk = (apiKey = "k") =>
  new GoogleGenAI({ vertexai: false, apiKey, httpOptions: { baseUrl: emulator.geminiBaseURL } });

beforeAll(async () => {
  emulator = await startEmulator({ model: () => ({ text: "ok" }) });
}, 60_000);
afterAll(() => emulator.close());

/** The Google error JSON the SDK put in an ApiError's message, with its status. */
async function failure(call: Promise<unknown>): Promise<{ status: number; error: Record<string, unknown> }> {
  try {
    await call;
  } catch (e) {
    const error = e as Error & { status: number };
    return { status: error.status, error: JSON.parse(error.message.slice(error.message.indexOf("{"))).error };
  }
  throw new Error("the call succeeded");
}

describe("emulated cachedContents", () => {
  it("creates, reads, refreshes and deletes a cache; generateContent reads it at the cached rate", async () => {
    const ai = sdk();
    const made = await ai.caches.create({
      model: "gemini-2.5-flash",
      config: {
        systemInstruction: { parts: [{ text: LONG }] },
        contents: [{ role: "user", parts: [{ text: "Remember the facts." }] }],
        ttl: "600s",
      },
    });
    expect(made.name).toMatch(/^cachedContents\//);
    expect(made.model).toBe("models/gemini-2.5-flash");
    const tokens = made.usageMetadata!.totalTokenCount!;
    expect(tokens).toBeGreaterThan(1024);
    expect(Date.parse(made.expireTime!) - Date.parse(made.createTime!)).toBe(600_000);

    expect((await ai.caches.get({ name: made.name! })).name).toBe(made.name);
    const updated = await ai.caches.update({ name: made.name!, config: { ttl: "7200s" } });
    expect(Date.parse(updated.expireTime!) - emulator.clock.now()).toBe(7_200_000);

    const answer = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      contents: "What does item 3 weigh?",
      config: { cachedContent: made.name! },
    });
    expect(answer.usageMetadata?.cachedContentTokenCount).toBe(tokens);
    expect(answer.usageMetadata!.promptTokenCount!).toBeGreaterThan(tokens);
    // The normalized usage: the rest is uncached input.
    const request = emulator.requests.at(-1)!;
    expect(request.usage?.cacheReadTokens).toBe(tokens);
    expect(request.request?.system).toBe(LONG); // the cache's system instruction, as the model saw it

    // With the cache, the API refuses system instruction / tools in the request itself.
    const both = await failure(
      ai.models.generateContent({
        model: "gemini-2.5-flash",
        contents: "hi",
        config: { cachedContent: made.name!, systemInstruction: "again" },
      }),
    );
    expect(both.status).toBe(400);
    expect(both.error.message).toMatch(/^CachedContent can not be used with GenerateContent request setting/);

    // Another key does not see it.
    const other = await failure(sdk("other").caches.get({ name: made.name! }));
    expect(other).toEqual({
      status: 403,
      error: { code: 403, message: "CachedContent not found (or permission denied)", status: "PERMISSION_DENIED" },
    });

    await ai.caches.delete({ name: made.name! });
    expect((await failure(ai.caches.get({ name: made.name! }))).status).toBe(403);
    const gone = await failure(
      ai.models.generateContent({ model: "gemini-2.5-flash", contents: "hi", config: { cachedContent: made.name! } }),
    );
    expect(gone.status).toBe(403);
    expect(gone.error.status).toBe("PERMISSION_DENIED");
  });

  it("refuses a prompt under the minimum, and forgets a cache after its TTL", async () => {
    const ai = sdk();
    const small = await failure(
      ai.caches.create({ model: "gemini-2.5-flash", config: { systemInstruction: "Be brief." } }),
    );
    expect(small.status).toBe(400);
    expect(small.error.message).toMatch(
      /^Cached content is too small\. total_token_count=\d+, min_total_token_count=1024$/,
    );

    const made = await ai.caches.create({ model: "gemini-2.5-flash", config: { systemInstruction: LONG } });
    expect(Date.parse(made.expireTime!) - Date.parse(made.createTime!)).toBe(3_600_000); // the API's default TTL
    emulator.clock.advance(3_600_000);
    expect((await failure(ai.caches.get({ name: made.name! }))).status).toBe(403);
  });

  it("GeminiProvider maps a gone cache to `cache-missing` (and nothing else)", async () => {
    const provider = new GeminiProvider({ apiKey: "k", baseURL: emulator.geminiBaseURL });
    const error = await provider.refreshContextCache("cachedContents/nope", 60).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).code).toBe("cache-missing");
    expect((error as ProviderError).retryable).toBe(false);
    const other = new Error(
      '{"error":{"code":403,"message":"Permission denied on resource","status":"PERMISSION_DENIED"}}',
    );
    Object.assign(other, { name: "ApiError", status: 403 });
    expect((toGeminiError(other, { aborted: false }) as ProviderError).code).toBe("auth");
  });
});
