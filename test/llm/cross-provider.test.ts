// Resume and fork across providers (#24, "Done when"): a session started on Anthropic continues on
// Gemini and back, and a fork of it runs on Gemini. Each provider's signed reasoning stays in the
// log, is sent back only to its own family, and a request to the other family goes without it —
// with one notice per session. The emulator refuses a signature that is not its provider's
// (Gemini: "Corrupted thought signature."; Anthropic: "Invalid `signature`"), so a leak would end
// the turn with an error instead of completing it. Every request is still rebuilt from the log.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../../src/tools/index.js";
import { type EmulatorServer, startEmulator } from "../../src/emulator/index.js";
import type { EmulatorRequest } from "../../src/emulator/types.js";
import { AnthropicProvider, GeminiProvider, type Provider, type ProviderNotice } from "../../src/llm/index.js";
import { createAgent, forkAgent, resumeAgent } from "../../src/loop/index.js";
import type { AssistantContent } from "../../src/messages/index.js";
import { JsonlSessionStore } from "../../src/store/index.js";

let emulator: EmulatorServer;
let root: string;

/** Thinks and reads a file on a new prompt; answers once the result is in. */
function model(request: EmulatorRequest) {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: `read: ${request.messages.length} messages so far` };
  return {
    reasoning: `thinking about step ${request.messages.length}`,
    toolCalls: [{ name: "read", arguments: { path: "a.txt" } }],
  };
}

beforeAll(async () => {
  emulator = await startEmulator({ keepRawBodies: true, model });
  root = await mkdtemp(join(tmpdir(), "keelson-cross-"));
}, 60_000); // startEmulator loads the tokenizer: slow on a busy machine
afterAll(async () => {
  await emulator.close();
  await rm(root, { recursive: true, force: true });
});

const read = defineTool({
  name: "read",
  description: "Read a file",
  input: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  execute: () => "42 words",
});

function providers(notices: ProviderNotice[]): { anthropic: Provider; gemini: Provider } {
  const onNotice = (notice: ProviderNotice): void => {
    notices.push(notice);
  };
  return {
    anthropic: new AnthropicProvider({ apiKey: "k", baseURL: emulator.anthropicBaseURL, onNotice }),
    gemini: new GeminiProvider({ apiKey: "k", baseURL: emulator.geminiBaseURL, onNotice }),
  };
}

const contentOf = (events: readonly { type: string; data: unknown }[]): AssistantContent[] =>
  events.flatMap((e) =>
    e.type === "assistant/message" ? [...(e.data as { content: readonly AssistantContent[] }).content] : [],
  );

describe("a session moves between Anthropic and Gemini", () => {
  it("continues on Gemini and back, each family's signatures sent only to it, with a notice for the rest", async () => {
    const store = new JsonlSessionStore({ root });
    const notices: ProviderNotice[] = [];
    const { anthropic, gemini } = providers(notices);
    const options = { tools: [read], system: "You read files." };

    const first = createAgent({ ...options, provider: anthropic, model: "anthropic:claude-sonnet-4-5", store });
    expect((await first.send("read a.txt")).reason.kind).toBe("completed");
    const id = first.session.id;
    await first.dispose();

    const onGemini = await resumeAgent(store, id, { ...options, provider: gemini, model: "gemini:gemini-2.5-flash" });
    const second = await onGemini.send("and again, on Gemini");
    expect(second.reason.kind).toBe("completed");
    await onGemini.dispose();

    const back = await resumeAgent(store, id, {
      ...options,
      provider: anthropic,
      model: "anthropic:claude-sonnet-4-5",
    });
    const third = await back.send("and back on Claude");
    expect(third.reason.kind).toBe("completed");
    const events = back.session.events;
    await back.dispose();

    // Nothing was lost: both families' signatures are in the log.
    const content = contentOf(events);
    const anthropicSigned = content.flatMap((b) =>
      b.type === "reasoning" && b.signature !== undefined ? [b.signature] : [],
    );
    const geminiSigned = content.flatMap((b) => {
      const signature = b.providerData?.api === "gemini" ? b.providerData.thoughtSignature : undefined;
      return typeof signature === "string" ? [signature] : [];
    });
    expect(anthropicSigned.length).toBe(2);
    expect(geminiSigned.length).toBe(1);

    // No request carried the other family's signature (the emulator would have refused it, too).
    const geminiBodies = emulator.requests.filter((r) => r.api === "gemini").map((r) => r.rawBody!);
    const anthropicBodies = emulator.requests.filter((r) => r.api === "anthropic").map((r) => r.rawBody!);
    expect(emulator.requests.every((r) => r.status === 200)).toBe(true);
    for (const signature of anthropicSigned) for (const body of geminiBodies) expect(body).not.toContain(signature);
    for (const signature of geminiSigned) for (const body of anthropicBodies) expect(body).not.toContain(signature);
    // …while each family got its own back.
    expect(geminiBodies.at(-1)).toContain(geminiSigned[0]!);
    expect(anthropicBodies.at(-1)).toContain(anthropicSigned[0]!);

    // One notice per session and provider, naming what stayed behind.
    expect(notices.map(({ code, provider, count, from }) => ({ code, provider, count, from }))).toEqual([
      { code: "dropped-reasoning", provider: "gemini", count: 1, from: ["anthropic"] },
      { code: "dropped-reasoning", provider: "anthropic", count: 1, from: ["gemini"] },
    ]);
  }, 60_000);

  it("a fork of an Anthropic session runs on Gemini", async () => {
    const store = new JsonlSessionStore({ root });
    const notices: ProviderNotice[] = [];
    const { anthropic, gemini } = providers(notices);
    const parent = createAgent({ tools: [read], provider: anthropic, model: "anthropic:claude-sonnet-4-5", store });
    await parent.send("read a.txt");
    const id = parent.session.id;
    await parent.dispose();
    const child = await forkAgent(store, id, { tools: [read], provider: gemini, model: "gemini:gemini-2.5-flash" });
    const outcome = await child.send("continue on Gemini");
    expect(outcome.reason.kind).toBe("completed");
    expect(child.session.header.parentSession).toBeDefined();
    await child.dispose();
    expect(notices).toHaveLength(1);
    expect(notices[0]!.message).toContain("not sent to gemini");
  }, 60_000);
});
